/** A results folder for dashboard tests: runs made in virtual time, and one run "in progress". */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import type { LiveFrame } from '../../src/report/live-stats.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

export const HOSTILE_MODEL = '<img src=x onerror="window.__pwned=1">';

export interface Fixture {
  results: string;
  runIds: string[];
  liveId: string;
}

export function frame(done: number, total: number, quality: LiveFrame['quality'] = null): LiveFrame {
  return {
    quality,
    elapsed_ms: done * 100, total, duration_ms: null, fraction: done / total, remaining_ms: (total - done) * 100, sent: done + 2, done, ok: done, failed: 0,
    failed_by_class: {}, inflight: 2, queued: 0, output_tokens: done * 8, window_s: 1, request_rate: 10, output_tokens_per_s: 80,
    ttft_p50_ms: 20 + done, ttft_p99_ms: 40 + done, tpot_p50_ms: 5, tpot_p99_ms: 7, client: { state: 'ok', reason: null, lag_max_ms: 0.2, busy: 0.1 },
  };
}

/** The eval run of a quality fixture: its run id, and the figures its result.json holds. */
export const EVAL_RUN = 'eval';

/**
 * `withQuality`: one more run, over HTTP against the built-in simulator in answer mode
 * (`--dataset-name eval --sim-accuracy 0.7`), so the history holds a run with answer checks.
 */
export async function makeFixture(opts: { withQuality?: boolean } = {}): Promise<Fixture> {
  const results = join(tempDir('dashboard'), 'results');
  const common = ['--random-input-len', '128', '--random-output-len', '16', '--num-prompts', '40', '--result-dir', results];
  for (const [rate, name] of [['4', 'slow'], ['8', 'fast']] as const) {
    const out = await runCli(['sim', 'run', '--request-rate', rate, '--name', name, ...common]);
    expect(out.code, out.stderr).toBe(0);
  }
  if (opts.withQuality) {
    const out = await runCli([
      'run', '--dataset-name', 'eval', '--num-prompts', '40', '--seed', '2', '--concurrency', '8', '--sim-prefill-ms', '1', '--sim-per-token-ms', '0.2',
      '--sim-accuracy', '0.7', '--gpu-hour-cost', '2', '--allow-invalid', '--name', EVAL_RUN, '--result-dir', results,
    ]);
    expect(out.code, out.stderr).toBe(0);
  }
  const runIds = readdirSync(results, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort();
  // A run whose model name is markup (what a hostile server could report): it must show as text.
  const hostile = join(results, 'hostile-run');
  // Copied from the slow run (no answer checks), named exactly: the eval run must stay the only one with checks.
  cpSync(join(results, runIds.find((id) => id.endsWith('-slow'))!), hostile, { recursive: true });
  const r = JSON.parse(readFileSync(join(hostile, 'result.json'), 'utf8')) as RunResult;
  r.run.id = 'hostile-run';
  r.target.model = HOSTILE_MODEL;
  writeFileSync(join(hostile, 'result.json'), JSON.stringify(r));
  const re = await runCli(['history', '--results-dir', results, '--reindex']);
  expect(re.code, re.stderr).toBe(0);
  // In progress: spec.json and progress frames, no result.json yet.
  const liveId = 'live-run';
  mkdirSync(join(results, liveId));
  writeFileSync(join(results, liveId, 'spec.json'), JSON.stringify({ target: { model: 'llama-3.1-8b' } }));
  writeFileSync(join(results, liveId, 'progress.jsonl'), `${JSON.stringify(frame(1, 10))}\n${JSON.stringify(frame(2, 10))}\n`);
  return { results, runIds: [...runIds, 'hostile-run'], liveId };
}

/** One HTTP request to the dashboard at `base` (its URL), the answer read whole. */
export function httpGet(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
