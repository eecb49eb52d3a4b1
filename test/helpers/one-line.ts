/** Bad input's answer, asserted: exit 2 and a single stderr line (its own module: scripts import cli.ts outside vitest). */
import { expect } from 'vitest';
import type { CliResult } from './cli.js';

/** Asserts exit 2 and one stderr line; returns the line for the caller to match. */
export function oneErrorLine(out: CliResult): string {
  expect(out.code, out.stderr).toBe(2);
  const lines = out.stderr.trim().split('\n');
  expect(lines, out.stderr).toHaveLength(1);
  return lines[0]!;
}
