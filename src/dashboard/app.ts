/**
 * The dashboard's routes (Hono): read-only, GET only, served on 127.0.0.1. The page is static
 * (page.ts) and fetches JSON; charts are SVG rendered here; a run in progress is followed by
 * server-sent events. Every answer is local: no CDN, no font or script from elsewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { UserError } from '../errors/user-error.js';
import { listRuns, runQualityOf } from '../history/history-query.js';
import type { RunResult } from '../report/result-json.js';
import { trend, trendMetric, TREND_METRICS, type TrendMetric } from '../history/trend.js';
import { liveSpec, loadCurveSpec, renderSvg, trendChart } from './charts.js';
import { livePoints, loadCurveGroups, loadCurvePoints, trendPoints } from './chart-data.js';
import { followRun } from './live-feed.js';
import { DASHBOARD_CSS, DASHBOARD_JS, dashboardPage } from './page.js';
import { fallbackReport } from './fallback-report.js';
import { qualityView, runCurrency } from './quality-view.js';
import { liveRuns, runDirOf, SERVED_FILES } from './run-files.js';

export interface DashboardOptions {
  resultsDir: string;
  /** The HTML report of a run directory (the report module's renderReport). */
  renderReport?: (dir: string) => Promise<string>;
  /** How often a live feed looks for new progress lines. */
  pollMs?: number;
  /**
   * Keeps an answer computed from the history while the history stays the same (the shared
   * reader's `cached`, history-pool.ts); without it every request computes its answer.
   */
  cached?: <T>(key: string, compute: () => Promise<T>) => Promise<T>;
}

/** The page's own resources only; the report pages carry their own policy. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function createDashboardApp(opts: DashboardOptions): Hono {
  const app = new Hono();
  const { resultsDir } = opts;
  const cached = <T>(key: unknown[], compute: () => Promise<T>): Promise<T> => (opts.cached ? opts.cached(JSON.stringify(key), compute) : compute());
  // /api/trend and the trend chart come together: one computation for both.
  const trendOf = (metric: TrendMetric, spec: string | null) => cached(['trend', metric, spec], () => trend(resultsDir, metric, { spec, threshold: 0.1 }));

  // Only this machine's names: a page elsewhere cannot reach the dashboard by rebinding a DNS name to 127.0.0.1.
  app.use('*', async (c, next) => {
    const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) return c.text('forbidden host', 403);
    await next();
  });

  app.get('/', (c) => c.html(dashboardPage(), 200, { 'Content-Security-Policy': CSP }));
  app.get('/assets/dashboard.js', (c) => c.body(DASHBOARD_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/assets/dashboard.css', (c) => c.body(DASHBOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/api/runs', async (c) => {
    const limit = Number(c.req.query('limit') ?? 200);
    const model = c.req.query('model') ?? null;
    const n = Number.isInteger(limit) && limit > 0 ? limit : 200;
    const runs = await cached(['runs', n, model], () => listRuns(resultsDir, { limit: n, model }));
    return c.json({ results_dir: resultsDir, runs, live: liveRuns(resultsDir), metrics: Object.keys(TREND_METRICS) });
  });

  // One run's answer quality (a sweep stage's too: its run id is `<sweep>.stage<i>`), formatted for the page.
  app.get('/api/runs/:id/quality', async (c) => {
    const id = c.req.param('id');
    const row = await cached(['quality', id], () => runQualityOf(resultsDir, id));
    if (row === null) return c.json({ error: `no run ${id} in the history` }, 404);
    const dir = row.dir === null ? null : runDirOf(resultsDir, row.dir);
    const q = row.quality as RunResult['quality'];
    return c.json({ run_id: id, quality: q ? qualityView(q, dir ? runCurrency(dir) : null) : null });
  });

  app.get('/api/trend', async (c) => c.json(await trendOf(trendMetric(c.req.query('metric') ?? 'ttft_p99_ms'), c.req.query('spec') ?? null)));
  app.get('/charts/trend.svg', async (c) => {
    const metric = trendMetric(c.req.query('metric') ?? 'ttft_p99_ms');
    const spec = c.req.query('spec') ?? null;
    return svg(c, await cached(['trend.svg', metric, spec], async () => renderSvg(trendChart(metric), trendPoints(await trendOf(metric, spec)))));
  });

  app.get('/api/load-curves', async (c) => c.json(await cached(['load-curves'], () => loadCurveGroups(resultsDir))));
  app.get('/charts/load-curve.svg', async (c) => {
    const g = { model: c.req.query('model') ?? '', target: c.req.query('target') ?? '', endpoint: c.req.query('endpoint') ?? '' };
    return svg(c, await cached(['load-curve.svg', g.model, g.target, g.endpoint], async () => renderSvg({ spec: loadCurveSpec() }, await loadCurvePoints(resultsDir, g))));
  });

  app.get('/runs/:id/report', async (c) => {
    const dir = runDirOf(resultsDir, c.req.param('id'));
    if (!dir || !(existsSync(join(dir, 'result.json')) || existsSync(join(dir, 'sweep.json')))) return c.text('no such finished run or sweep', 404);
    // The report the run wrote (or `infermeter report` rewrote), else one rendered now.
    const written = join(dir, 'report.html');
    if (existsSync(written)) return c.html(readFileSync(written, 'utf8'));
    return c.html(opts.renderReport ? await opts.renderReport(dir) : fallbackReport(dir));
  });
  app.get('/runs/:id/files/:name', (c) => {
    const dir = runDirOf(resultsDir, c.req.param('id'));
    const name = c.req.param('name');
    const type = SERVED_FILES[name];
    if (!dir || !type || !existsSync(join(dir, name))) return c.text('not found', 404);
    return c.body(readFileSync(join(dir, name)), 200, { 'Content-Type': type });
  });

  app.get('/api/live/:id', (c) => {
    const dir = runDirOf(resultsDir, c.req.param('id'));
    if (!dir) return c.text('no such run', 404);
    return streamSSE(c, (stream) => followRun(stream, dir, opts.pollMs));
  });
  app.get('/charts/live/:id', async (c) => {
    const dir = runDirOf(resultsDir, c.req.param('id').replace(/\.svg$/, ''));
    if (!dir) return c.text('no such run', 404);
    return svg(c, await renderSvg({ spec: liveSpec() }, livePoints(dir)));
  });

  app.onError((err, c) => {
    if (err instanceof UserError) return c.json({ error: err.message }, 400);
    return c.json({ error: err.message.split('\n')[0] }, 500);
  });
  return app;
}

function svg(c: { body: (b: string, s: 200, h: Record<string, string>) => Response }, text: string): Response {
  return c.body(text, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' });
}
