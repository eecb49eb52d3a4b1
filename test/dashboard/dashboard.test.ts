/** The dashboard over real HTTP on 127.0.0.1: pages, JSON, charts, files, and the live feed. */
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from '../../src/dashboard/serve.js';
import { frame, httpGet, makeFixture, type Fixture } from './fixture.js';

let fx: Fixture;
let dash: RunningDashboard;

beforeAll(async () => {
  fx = await makeFixture();
  dash = await startDashboard({ resultsDir: fx.results, port: 0, pollMs: 20 });
});
afterAll(async () => dash?.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => httpGet(dash.url, path, headers, method);

describe('dashboard over HTTP', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(dash.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('the page loads only its own script and stylesheet, under a strict content policy', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
    const refs = [...page.body.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(refs).toEqual(['/assets/dashboard.css', '/assets/dashboard.js']);
    const js = await get('/assets/dashboard.js');
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.body).not.toMatch(/https?:\/\//);
    expect(js.body).not.toMatch(/innerHTML/);
  });

  it('lists the runs of the history and the runs in progress', async () => {
    const data = JSON.parse((await get('/api/runs')).body) as { runs: Array<Record<string, unknown>>; live: Array<{ run_id: string; last: { done: number } }> };
    expect(data.runs.map((r) => r.run_id).sort()).toEqual([...fx.runIds].sort());
    expect(data.live.map((l) => l.run_id)).toEqual([fx.liveId]);
    expect(data.live[0]!.last.done).toBe(2);
  });

  it('charts are SVG with marks: the trend of a spec, the load curve of a model and target', async () => {
    const runs = (JSON.parse((await get('/api/runs')).body) as { runs: Array<{ run_id: string; spec_hash: string }> }).runs;
    const trend = await get(`/charts/trend.svg?metric=ttft_p99&spec=${runs[0]!.spec_hash}`);
    expect(trend.headers['content-type']).toBe('image/svg+xml');
    expect(trend.body).toMatch(/^<svg[^>]*>/);
    expect(trend.body).toMatch(/<path[^>]+d="M/);
    const groups = JSON.parse((await get('/api/load-curves')).body) as Array<{ model: string; target: string; endpoint: string; n: number }>;
    expect(groups).toEqual([{ model: 'llama-3.1-8b', target: 'simulator (h100)', endpoint: '/v1/completions', n: 2 }]);
    const g = groups[0]!;
    const curve = await get(`/charts/load-curve.svg?model=${encodeURIComponent(g.model)}&target=${encodeURIComponent(g.target)}&endpoint=${encodeURIComponent(g.endpoint)}`);
    expect(curve.body).toMatch(/offered load/);
    expect(curve.body).toMatch(/<path[^>]+d="M/);
    const bad = await get('/api/trend?metric=nope');
    expect(bad.status).toBe(400);
  });

  it('a run\'s report and files; nothing outside its folder, nothing but GET, no other Host', async () => {
    const id = fx.runIds[0]!;
    // Every run writes report.html; the dashboard serves that file.
    const report = await get(`/runs/${id}/report`);
    expect(report.status).toBe(200);
    expect(report.headers['content-type']).toMatch(/text\/html/);
    expect(report.body).toBe(readFileSync(join(fx.results, id, 'report.html'), 'utf8'));
    const result = await get(`/runs/${id}/files/result.json`);
    expect(JSON.parse(result.body).run.id).toBe(id);
    expect((await get(`/runs/${id}/files/history.duckdb`)).status).toBe(404);
    expect((await get('/runs/..%2F..%2Fetc/files/result.json')).status).toBe(404);
    expect((await get('/runs/.history-pending/report')).status).toBe(404);
    expect((await get('/api/runs', {}, 'POST')).status).toBe(404);
    expect((await get('/', { Host: 'attacker.example:80' })).status).toBe(403);
  });

  it('follows a run in progress over server-sent events until its result appears', async () => {
    const res = await fetch(`${dash.url}/api/live/${fx.liveId}`);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pred: (t: string) => boolean) => {
      while (!pred(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    };
    const frames = () => [...text.matchAll(/event: frame\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1]!) as { done: number });
    await readUntil(() => frames().length >= 2);
    expect(frames().map((f) => f.done)).toEqual([1, 2]);
    // The run goes on: one more frame, then its result.
    appendFileSync(join(fx.results, fx.liveId, 'progress.jsonl'), `${JSON.stringify(frame(3, 10))}\n`);
    await readUntil(() => frames().length >= 3);
    expect(frames().map((f) => f.done)).toEqual([1, 2, 3]);
    copyFileSync(join(fx.results, fx.runIds[0]!, 'result.json'), join(fx.results, fx.liveId, 'result.json'));
    await readUntil((t) => t.includes('event: end'));
    expect(text).toMatch(/event: end\n/);
    const data = JSON.parse((await get('/api/runs')).body) as { live: unknown[] };
    expect(data.live).toEqual([]);
    writeFileSync(join(fx.results, fx.liveId, 'progress.jsonl'), '');
  });
});
