/**
 * Wall-clock figures seen by the timing tests. With INFERMETER_TIMING_LOG=<file>, each figure is
 * appended as one JSON line, so repeated runs under load give the spread that the tolerances in
 * these tests are set from (docs/testing.md).
 */
import { appendFileSync } from 'node:fs';

export function observe(name: string, value: number): number {
  const path = process.env['INFERMETER_TIMING_LOG'];
  if (path) appendFileSync(path, `${JSON.stringify({ name, value })}\n`);
  return value;
}
