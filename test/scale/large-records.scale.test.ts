/**
 * A run larger than a Node string (536,870,888 characters) is read back: a records.jsonl of
 * over 600 MiB, generated here (never committed), analysed through the CLI. Opt-in
 * (`npm run test:scale`): it writes 620 MiB and holds ~1 GB, ~30 s on a busy 2-core machine.
 * The default suite guards the reader's line handling at every read boundary
 * (test/store/records-reader.test.ts).
 */
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyRecord } from '../../src/record/record.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Node's longest string (v8's String::kMaxLength on 64-bit): the old whole-file reader's limit. */
const MAX_STRING = 536_870_888;

/** Writes records until the file has `bytes`: TTFT of request i is 120.123 + (i mod 7) × 0.5 ms. */
function writeLargeRecords(path: string, bytes: number): number {
  const fd = openSync(path, 'w');
  let written = 0;
  let id = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let k = 0; k < 1000; k++, id++) {
      const sent = id * 50;
      const ttft = 120.123 + (id % 7) * 0.5;
      const chunks = Float64Array.from({ length: 128 }, (_, j) => sent + ttft + j * 12.345);
      lines.push(recordToJsonLine({ ...emptyRecord(id, sent), first_token_ms: chunks[0]!, chunk_ms: chunks, end_ms: chunks[127]! + 0.5, output_tokens: 128, prompt_tokens: 1024, token_source: 'usage', finish_reason: 'length', http_status: 200, requested_output_tokens: 128 }));
    }
    const b = Buffer.from(`${lines.join('\n')}\n`);
    writeSync(fd, b);
    written += b.length;
  }
  closeSync(fd);
  return id;
}

describe('a records file larger than a string', () => {
  it('is analysed: every record counted, figures as generated', async () => {
    const path = join(tempDir('large-records'), 'records.jsonl');
    const n = writeLargeRecords(path, 620 * 2 ** 20);
    expect(statSync(path).size).toBeGreaterThan(MAX_STRING);
    const out = await runCli(['analyze', path, '--json']);
    expect(out.stderr).not.toContain('ERR_STRING_TOO_LONG');
    expect(out.code).toBe(0);
    const m = (JSON.parse(out.stdout) as { metrics: { requests: { total: number; ok: number }; latency: { ttft_ms: { count: number; min: number; max: number; mean: number } } } }).metrics;
    expect(m.requests.total).toBe(n);
    expect(m.requests.ok).toBe(n);
    const ttft = m.latency.ttft_ms;
    expect(ttft.count).toBe(n);
    expect(ttft.min).toBeCloseTo(120.123, 6);
    expect(ttft.max).toBeCloseTo(123.123, 6);
    // mean of 120.123 + (i mod 7) × 0.5 over i < n
    let sum = 0;
    for (let i = 0; i < n; i++) sum += (i % 7) * 0.5;
    expect(ttft.mean).toBeCloseTo(120.123 + sum / n, 6);
  });
});
