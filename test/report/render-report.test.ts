import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPILED_CHARTS } from '../../src/report/charts/compiled-charts.js';
import { renderReport } from '../../src/report/render-report.js';
import { escapeHtml } from '../../src/report/html/escape.js';
import { runCli } from '../helpers/cli.js';
import { INJECTED, makeReportFixture, type ReportFixture } from './report-fixture.js';
import { makeSweepFixture, SWEEP_INJECTED } from './sweep-fixture.js';

let fx: ReportFixture;
beforeAll(async () => {
  fx = await makeReportFixture();
});
afterAll(() => fx?.cleanup());

/** The Vega specs compiled ahead of time (src/report/charts/compiled-charts.ts), as JSON texts. */
const PRECOMPILED = new Set((JSON.parse(COMPILED_CHARTS) as Array<[string, unknown]>).map(([, v]) => JSON.stringify(v)));

/** The JSON the page renders its charts from. */
function payload(html: string): { charts: Array<{ id: string; datasets: string[]; vega: unknown }>; datasets: Record<string, unknown[]> } {
  const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  return JSON.parse(m![1]!) as ReturnType<typeof payload>;
}

describe('renderReport', () => {
  it('shows server and dataset text escaped, never as markup', async () => {
    const html = await renderReport(fx.dir);
    for (const text of Object.values(INJECTED)) {
      expect(html).not.toContain(text);
    }
    expect(html).toContain(escapeHtml(INJECTED.output));
    expect(html).toContain(escapeHtml(INJECTED.error));
    expect(html).toContain(escapeHtml(INJECTED.model));
    // Only the page's own three script elements (data, runtime, boot).
    expect(html.match(/<script/gi)).toHaveLength(3);
  });

  it('carries every chart with its data, and the tables of figures', async () => {
    const html = await renderReport(fx.dir);
    const p = payload(html);
    const ids = p.charts.map((c) => c.id);
    for (const id of ['hist-ttft', 'cdf-ttft', 'hist-tpot', 'cdf-tpot', 'hist-itl', 'cdf-itl', 'hist-e2el', 'cdf-e2el', 'ts-requests', 'ts-tokens', 'ts-inflight', 'ts-ttft', 'ts-tpot', 'ts-errors', 'ts-slo', 'ts-schedule', 'ts-lag', 'breakdown-tasks']) {
      expect(ids).toContain(id);
      expect(html).toContain(`id="chart-${id}"`);
    }
    for (const c of p.charts) for (const d of c.datasets) expect(p.datasets[d]!.length).toBeGreaterThan(0);
    // Every chart came from the ahead-of-time table: writing the report did not need Vega-Lite.
    for (const c of p.charts) expect(PRECOMPILED.has(JSON.stringify(c.vega)), c.id).toBe(true);
    const result = JSON.parse(readFileSync(join(fx.dir, 'result.json'), 'utf8'));
    expect(html).toContain(result.metrics.latency.ttft_ms.p99.toFixed(2));
    expect(html).toContain('http_5xx');
    expect(html).toContain('Run spec');
    // The SLO verdicts of result.json's `slos`: text escaped, windows met, attainment, verdict.
    expect(html).toContain('p99(ttft) &lt;= 500ms over 5s &gt;= 99%');
    expect(html).toMatch(/<td>2 \/ 4<\/td><td>50\.00%<\/td><td>99\.00%<\/td><td>FAIL<\/td>/);
  });

  it('stays small: binned data, no point per token', async () => {
    const html = await renderReport(fx.dir);
    const p = payload(html);
    expect(p.datasets.hist_itl_ms!.length).toBeLessThanOrEqual(40);
    expect(p.datasets.cdf_itl_ms!.length).toBeLessThanOrEqual(201);
    expect(p.datasets.series!.length).toBeLessThanOrEqual(200);
  });

  it('says what is wrong with a directory that is not a run', async () => {
    await expect(renderReport(join(fx.root, 'missing'))).rejects.toThrow(/no such run directory/);
    await expect(renderReport(fx.root)).rejects.toThrow(/no result.json/);
    const r = await runCli(['report', join(fx.root, 'missing')]);
    expect(r.code).toBe(2);
  });
});

describe('infermeter report and the report of a run', () => {
  it('writes --out and names it', async () => {
    const out = join(fx.root, 'out.html');
    const r = await runCli(['report', fx.dir, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(out);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('sim run writes report.html and names it; --no-report does not', async () => {
    const r = await runCli(['sim', 'run', '--num-prompts', '20', '--request-rate', '10', '--result-dir', join(fx.root, 'auto'), '--name', 'a']);
    expect(r.code).toBe(0);
    const dir = join(fx.root, 'auto', readdirSync(join(fx.root, 'auto')).filter((d) => !d.startsWith('.'))[0]!);
    expect(r.stdout).toContain(`Report: ${join(dir, 'report.html')}`);
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    const q = await runCli(['sim', 'run', '--num-prompts', '20', '--result-dir', join(fx.root, 'quiet'), '--no-report']);
    expect(q.code).toBe(0);
    expect(q.stdout).not.toContain('Report:');
    const qdir = join(fx.root, 'quiet', readdirSync(join(fx.root, 'quiet')).filter((d) => !d.startsWith('.'))[0]!);
    expect(existsSync(join(qdir, 'report.html'))).toBe(false);
  });
});

describe('the report of a sweep directory', () => {
  it('has the load curves with saturation and knee, the stages, and escaped text', async () => {
    const dir = await makeSweepFixture();
    const html = await renderReport(dir);
    expect(html).not.toContain(SWEEP_INJECTED);
    expect(html).toContain(escapeHtml(SWEEP_INJECTED));
    const p = payload(html);
    expect(p.charts.map((c) => c.id)).toEqual(['sweep-ttft', 'sweep-tpot', 'sweep-throughput', 'sweep-tokens', 'cdfs-ttft', 'cdfs-tpot', 'cdfs-itl', 'cdfs-e2el']);
    // One CDF per stage, from records.jsonl's records of that stage, named 1-based as the CLI does.
    expect([...new Set(p.datasets.cdfs_ttft_ms!.map((r) => (r as { group: string }).group))]).toEqual(['stage 1 (5 req/s)', 'stage 2 (20 req/s)', 'stage 3 (60 req/s)']);
    expect(p.datasets.slo_rules).toEqual([{ metric: 'ttft_ms', value: 300, label: 'goodput: TTFT ≤ 300 ms per request' }]);
    for (const c of p.charts) expect(PRECOMPILED.has(JSON.stringify(c.vega)), c.id).toBe(true);
    expect(p.datasets.sweep_points!.map((pt) => (pt as { load: number }).load)).toEqual([5, 20, 60]);
    expect(p.datasets.sweep_markers).toEqual([
      { load: 60, label: 'saturation' },
      { load: 20, label: 'knee' },
    ]);
    expect(html).toContain('fail (stopped early)');
  });

  it('states a finding without a load by its stage, never as "null"', async () => {
    const dir = await makeSweepFixture();
    const doc = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as { analysis: Record<string, unknown> };
    doc.analysis.degradation = { index: 2, load: null, reason: 'an SLO failed' };
    writeFileSync(join(dir, 'sweep.json'), JSON.stringify(doc));
    const html = await renderReport(dir);
    expect(html).toContain('Degradation at stage 3: the service got worse');
    expect(html.slice(html.indexOf('<main>'), html.indexOf('</main>'))).not.toContain('null');
  });
});
