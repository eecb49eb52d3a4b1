/**
 * The dashboard under a page's burst of requests, over real HTTP on 127.0.0.1: requests that come
 * together share one DuckDB instance (history/history-pool.ts) instead of each opening the file
 * in turn, every answer is whole and the same as one asked alone, and a run finished meanwhile
 * (a journal row) is folded in and shown by the next request.
 */
import { cpSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../src/dashboard/app.js';
import { startDashboard, type RunningDashboard } from '../../src/dashboard/serve.js';
import { hasJournal } from '../../src/history/history-journal.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../helpers/cli.js';
import { httpGet, makeFixture, type Fixture } from './fixture.js';

let fx: Fixture;
let dash: RunningDashboard;

let pendingCopy: string;

beforeAll(async () => {
  fx = await makeFixture();
  // A copy of the folder for a dashboard started with runs pending in its journal.
  pendingCopy = `${tempDir('dashboard-pending')}/results`;
  cpSync(fx.results, pendingCopy, { recursive: true });
  dash = await startDashboard({ resultsDir: fx.results, port: 0, pollMs: 20 });
});
afterAll(async () => dash?.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => httpGet(dash.url, path, headers, method);

const runIdsOf = (body: string) => (JSON.parse(body) as { runs: Array<{ run_id: string }> }).runs.map((r) => r.run_id).sort();

describe('dashboard: concurrent requests', () => {
  it('a burst of requests shares one DuckDB instance and each answer equals the one asked alone', async () => {
    const paths = ['/api/runs', '/api/trend?metric=ttft_p99_ms', '/api/load-curves', '/charts/trend.svg?metric=ttft_p99_ms'];
    const alone: Array<{ status: number; body: string }> = [];
    for (const p of paths) alone.push(await get(p));
    const before = dash.historyOpens();
    expect(before).toBeGreaterThanOrEqual(1); // the reads went through the shared instance
    const burst = await Promise.all(Array.from({ length: 24 }, (_, i) => get(paths[i % paths.length]!)));
    // Opened at most once for the whole burst (once more only if the idle close fell inside it).
    expect(dash.historyOpens() - before).toBeLessThanOrEqual(1);
    burst.forEach((res, i) => {
      expect(res.status, res.body).toBe(200);
      expect(res.body).toBe(alone[i % paths.length]!.body);
    });
    expect(runIdsOf(burst[0]!.body)).toEqual([...fx.runIds].sort());
  });

  it('kept answers (per version of the history) are the answers computed afresh, asked once or again', async () => {
    // The same routes with nothing kept: every request computes its answer (the oracle).
    const fresh = createDashboardApp({ resultsDir: fx.results });
    const freshGet = async (path: string) => {
      const res = await fresh.request(path, { headers: { host: '127.0.0.1' } });
      return { status: res.status, body: await res.text() };
    };
    const runs = (JSON.parse((await get('/api/runs')).body) as { runs: Array<{ run_id: string; spec_hash: string }> }).runs;
    // Each spec's trend apart from the newest run's (the default): a kept answer must not stand in for another.
    const specs = [...new Set(runs.map((r) => r.spec_hash))];
    expect(specs.length).toBeGreaterThan(1);
    const groups = JSON.parse((await get('/api/load-curves')).body) as Array<{ model: string; target: string; endpoint: string }>;
    expect(groups.length).toBeGreaterThan(0);
    const g = groups[0]!;
    const curve = `model=${encodeURIComponent(g.model)}&target=${encodeURIComponent(g.target)}&endpoint=${encodeURIComponent(g.endpoint)}`;
    const paths = [
      '/api/runs', '/api/runs?limit=1', '/api/load-curves', `/charts/load-curve.svg?${curve}`, '/charts/load-curve.svg?model=none',
      ...['ttft_p99_ms', 'output_throughput'].flatMap((m) => [`/api/trend?metric=${m}`, `/charts/trend.svg?metric=${m}`, ...specs.flatMap((h) => [`/api/trend?metric=${m}&spec=${h}`, `/charts/trend.svg?metric=${m}&spec=${h}`])]),
      `/api/runs/${runs[0]!.run_id}/quality`, '/api/runs/no-such-run/quality', '/api/trend?metric=ttft_p99_ms&spec=no-such-spec',
    ];
    for (let pass = 0; pass < 2; pass++) {
      for (const p of paths) {
        const [kept, afresh] = [await get(p), await freshGet(p)];
        expect({ status: kept.status, body: kept.body }, `${p} (pass ${pass})`).toEqual(afresh);
      }
    }
  });

  it('a run finished while the dashboard serves shows in the next answers (its journal row folded in)', async () => {
    await Promise.all([get('/api/runs'), get('/api/load-curves')]);
    const out = await runCli(['sim', 'run', '--request-rate', '6', '--name', 'later', '--random-input-len', '128', '--random-output-len', '16', '--num-prompts', '20', '--result-dir', fx.results]);
    expect(out.code, out.stderr).toBe(0);
    const answers = await Promise.all(Array.from({ length: 6 }, () => get('/api/runs')));
    for (const a of answers) {
      expect(a.status).toBe(200);
      const ids = runIdsOf(a.body);
      expect(ids).toHaveLength(fx.runIds.length + 1);
      expect(ids.some((id) => id.endsWith('-later'))).toBe(true);
    }
  });

  it('folds the journal when it starts, before any request, so the first page load does not wait for it', async () => {
    // A run finished into the folder while no dashboard served it: its row waits in the journal.
    const out = await runCli(['sim', 'run', '--request-rate', '6', '--name', 'pending', '--random-input-len', '128', '--random-output-len', '16', '--num-prompts', '20', '--result-dir', pendingCopy]);
    expect(out.code, out.stderr).toBe(0);
    expect(hasJournal(pendingCopy)).toBe(true);
    const d = await startDashboard({ resultsDir: pendingCopy, port: 0, pollMs: 20 });
    try {
      expect(hasJournal(pendingCopy)).toBe(false);
      expect(d.historyOpens()).toBe(1);
      const res = await httpGet(d.url, '/api/runs', {}, 'GET');
      expect(res.status).toBe(200);
      const ids = runIdsOf(res.body);
      expect(ids).toHaveLength(fx.runIds.length + 1);
      expect(ids.some((id) => id.endsWith('-pending'))).toBe(true);
      expect(d.historyOpens()).toBe(1);
    } finally {
      await d.close();
    }
  });
});
