/**
 * Splitting a run across worker threads sends exactly what one loop would (same indices,
 * prompts and scheduled times) and the merged records give identical figures.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildResult, type FinishInput } from '../../src/session/finish-run.js';
import type { RequestRecord } from '../../src/record/record.js';
import { globalIndex, shardCount, shardIterator, shardShare } from '../../src/runner/shard.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('shards', () => {
  it('partition indices, counts and levels exactly', () => {
    for (const step of [1, 2, 3, 5]) {
      const seen: number[] = [];
      for (let offset = 0; offset < step; offset++) {
        const it = shardIterator([...Array(23).keys()][Symbol.iterator](), { offset, step });
        const mine: number[] = [];
        for (let r = it.next(); !r.done; r = it.next()) mine.push(r.value);
        expect(mine).toEqual(Array.from({ length: shardCount({ offset, step }, 23) }, (_, k) => globalIndex({ offset, step }, k)));
        seen.push(...mine);
      }
      expect(seen.sort((a, b) => a - b)).toEqual([...Array(23).keys()]);
      const shares = Array.from({ length: step }, (_, offset) => shardShare({ offset, step }, 7));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(7);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });
});

async function recordsWith(workers: number): Promise<RequestRecord[]> {
  const dir = tempDir('workers');
  const out = await runCli([
    'run', '--sim-prefill-ms', '2', '--sim-per-token-ms', '1', '--num-prompts', '30', '--request-rate', '200',
    '--random-input-len', '40', '--random-output-len', '6', '--random-range-ratio', '0.5', '--seed', '9',
    '--workers', String(workers), '--result-dir', dir, '--progress', 'none',
  ]);
  expectCompleted(out);
  return readRecordsFile(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'records.jsonl')).records;
}

describe('--workers', () => {
  it('sends the same requests at the same scheduled times with 0, 1 or 3 workers', async () => {
    const shape = (recs: RequestRecord[]) =>
      recs
        .map((r) => ({ id: r.id, scheduled_ms: r.scheduled_ms, client_prompt_tokens: r.client_prompt_tokens, requested: r.requested_output_tokens, status: r.status }))
        .sort((a, b) => a.id - b.id);
    const inline = await recordsWith(0);
    const one = await recordsWith(1);
    const three = await recordsWith(3);
    expect(inline).toHaveLength(30);
    expect(shape(one)).toEqual(shape(inline));
    expect(shape(three)).toEqual(shape(inline));
    expect(new Set(three.map((r) => r.worker))).toEqual(new Set([0, 1, 2]));
  });

  it('merged records give identical figures whatever their order', async () => {
    const recs = await recordsWith(2);
    const input = (records: RequestRecord[]): FinishInput => ({
      spec: { goodput: [{ metric: 'ttft_ms', threshold_ms: 50 }], output: { json: false, vllm_json: null } },
      dir: null,
      records,
      run: { name: 'x', started_at: '', ended_at: '', interrupted: false, driver: 'http', monotonic_origin_ns: null },
      target: { base_url: null, endpoint: '/v1/completions', model: 'm', simulated: true, simulator: null, stream: true },
      load: {},
      workload: {},
      health: null,
      client: {},
      ignoreEos: true,
      clientTokenizer: 'estimate',
    });
    const asWritten = buildResult(input(recs)).metrics;
    const reversed = buildResult(input([...recs].reverse())).metrics;
    const byWorker = buildResult(input([...recs].sort((a, b) => a.worker - b.worker || b.id - a.id))).metrics;
    expect(reversed).toEqual(asWritten);
    expect(byWorker).toEqual(asWritten);
  });

  it('Ctrl-C reaches the worker threads: in-flight requests are cancelled, what finished is kept', async () => {
    const ac = new AbortController();
    const dir = tempDir('workers-int');
    // Ctrl-C once the first finished request is on disk: by then others are in flight (50/s,
    // each takes 5 + 19 × 20 ms), whatever the machine's load.
    const firstOk = async (): Promise<void> => {
      for (let i = 0; i < 2000 && !ac.signal.aborted; i++) {
        const run = readdirSync(dir).filter((d) => !d.startsWith('.'))[0];
        const path = run && join(dir, run, 'records.jsonl');
        if (path && existsSync(path) && readFileSync(path, 'utf8').includes('"status":"ok"')) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      ac.abort();
    };
    void firstOk();
    const out = await runCli(
      ['run', '--sim-prefill-ms', '5', '--sim-per-token-ms', '20', '--num-prompts', '200', '--request-rate', '50', '--random-input-len', '16', '--random-output-len', '20',
        '--workers', '2', '--result-dir', dir, '--json', '--progress', 'none'],
      {},
      ac.signal,
    );
    expect(out.code, out.stderr).toBe(130); // 128 + SIGINT, after writing what was measured
    expect(out.stderr).toContain('interrupted');
    const r = JSON.parse(out.stdout) as { run: { interrupted: boolean }; metrics: { requests: { ok: number; by_status: { cancelled: number }; total: number } } };
    expect(r.run.interrupted).toBe(true);
    expect(r.metrics.requests.ok).toBeGreaterThan(0);
    expect(r.metrics.requests.by_status.cancelled).toBeGreaterThan(0);
    expect(r.metrics.requests.total).toBeLessThan(200);
  });
});
