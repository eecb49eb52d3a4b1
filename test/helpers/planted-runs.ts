/** Run directories with a planted change, for compare's tests: the change's size is known exactly. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A copy of a run whose every TTFT is 20% longer (first token and every later chunk shifted). */
export function plantTtftRegression(src: string, dest: string): void {
  cpSync(src, dest, { recursive: true });
  const lines = readFileSync(join(src, 'records.jsonl'), 'utf8').trim().split('\n');
  const out = lines.map((line) => {
    const r = JSON.parse(line) as { sent_ms: number; first_token_ms: number | null; chunk_ms: number[]; end_ms: number; status: string };
    if (r.status !== 'ok' || r.first_token_ms === null) return line;
    const shift = 0.2 * (r.first_token_ms - r.sent_ms);
    r.first_token_ms += shift;
    r.chunk_ms = r.chunk_ms.map((t) => t + shift);
    r.end_ms += shift;
    return JSON.stringify(r);
  });
  writeFileSync(join(dest, 'records.jsonl'), `${out.join('\n')}\n`);
}
