import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/client/http-client.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { recordFromJsonLine } from '../../src/record/jsonl.js';
import { retryDelayMs, shouldRetry } from '../../src/runner/retry-policy.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, sseHeaders, chunk } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const policy = { retries: 3, baseMs: 500, maxMs: 30_000 };
const failed = (init: Partial<RequestRecord>): RequestRecord => ({ ...emptyRecord(1, 0), status: 'error', error_class: 'http_429', ...init });

describe('retry policy', () => {
  it('retries failures before any output, never a stream that had begun', () => {
    expect(shouldRetry(failed({}), policy)).toBe(true);
    expect(shouldRetry(failed({ error_class: 'http_5xx' }), policy)).toBe(true);
    expect(shouldRetry(failed({ error_class: 'connect' }), policy)).toBe(true);
    expect(shouldRetry(failed({ error_class: 'http_4xx' }), policy)).toBe(false);
    expect(shouldRetry(failed({ error_class: 'disconnect', first_token_ms: 5 }), policy)).toBe(false);
    expect(shouldRetry(failed({ error_class: 'http_5xx', first_token_ms: 5 }), policy)).toBe(false);
    expect(shouldRetry(failed({ attempt: 3 }), policy)).toBe(false);
    expect(shouldRetry({ ...emptyRecord(1, 0) }, policy)).toBe(false);
  });

  it('waits Retry-After when given, else 0.5 s × 2^attempt, at most 30 s', () => {
    expect([0, 1, 2, 3].map((attempt) => retryDelayMs(failed({ attempt }), policy))).toEqual([500, 1000, 2000, 4000]);
    expect(retryDelayMs(failed({ attempt: 10 }), policy)).toBe(30_000);
    expect(retryDelayMs(failed({ retry_after_ms: 2000 }), policy)).toBe(2000);
    expect(retryDelayMs(failed({ retry_after_ms: 600_000 }), policy)).toBe(30_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', now)).toBe(5000);
  });
});

describe('--retries end to end', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, faults: { seed: 11, http429Rate: 0.3, retryAfterS: 0 } });
  });
  afterAll(() => sim.close());

  it('each attempt is a record of its request; figures count the last attempt', async () => {
    const dir = tempDir('retries');
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '40', '--request-rate', 'inf',
      '--random-input-len', '16', '--random-output-len', '4', '--retries', '3', '--result-dir', dir, '--json', '--progress', 'none', '--workers', '0', '--no-metrics',
    ]);
    const m = (JSON.parse(out.stdout) as RunResult).metrics;
    const runDir = join(dir, readdirSync(dir).find((d) => !d.endsWith('.duckdb') && !d.startsWith('.')) as string);
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map(recordFromJsonLine);
    const last = records.filter((r) => !r.retried);
    const superseded = records.filter((r) => r.retried);
    // one last attempt per request; every superseded attempt was a 429 before any output
    expect(new Set(last.map((r) => r.id)).size).toBe(40);
    expect(last).toHaveLength(40);
    expect(superseded.length).toBeGreaterThan(0);
    expect(superseded.every((r) => r.error_class === 'http_429' && r.first_token_ms === null)).toBe(true);
    // attempts of one request are numbered 0, 1, …; a request still failing used all its retries
    for (const r of last) {
      const attempts = records.filter((x) => x.id === r.id).map((x) => x.attempt ?? 0).sort();
      expect(attempts).toEqual(attempts.map((_, i) => i));
      if (r.status !== 'ok') expect(r.attempt).toBe(3);
    }
    expect(m.requests.total).toBe(40);
    expect(m.requests.retried).toBe(superseded.length);
    expect(m.requests.retry_rate).toBe(superseded.length / 40);
    expect(m.requests.ok).toBe(last.filter((r) => r.status === 'ok').length);
  });

  it("honours the server's Retry-After", async () => {
    let calls = 0;
    const server = await startTestServer((req, res) => {
      // the run's environment probes (GET /v1/models, /version, …) are not generation calls
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      calls++;
      if (calls === 1) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        res.end('{"error":{"message":"slow down"}}');
        return;
      }
      sseHeaders(res);
      res.end(`${chunk('hi', 'stop')}data: [DONE]\n\n`);
    });
    try {
      const dir = tempDir('retries');
      const out = await runCli(['run', '--base-url', server.url, '--no-preflight', '--model', 'm', '--num-prompts', '1', '--retries', '2', '--result-dir', dir, '--json', '--progress', 'none', '--workers', '0', '--no-metrics']);
      expect(JSON.parse(out.stdout).metrics.requests.ok).toBe(1);
      const runDir = join(dir, readdirSync(dir).find((d) => !d.endsWith('.duckdb') && !d.startsWith('.')) as string);
      const [first, second] = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map(recordFromJsonLine).sort((a, b) => (a.attempt ?? 0) - (b.attempt ?? 0));
      expect(first?.retry_after_ms).toBe(1000);
      // a lower bound only: a busy machine makes the wait longer, never shorter (less the up to
      // 1 ms by which a libuv timer may fire early on its millisecond clock)
      expect((second?.sent_ms ?? 0) - (first?.end_ms ?? 0)).toBeGreaterThanOrEqual(998);
    } finally {
      await server.close();
    }
  });
});
