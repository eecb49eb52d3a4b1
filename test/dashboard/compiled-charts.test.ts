/**
 * The dashboard's charts drawn from dataflows compiled ahead of time (src/dashboard/compiled-charts.ts):
 * the table is what `npm run charts:compile` writes now, and every chart drawn from it is the SVG a
 * fresh Vega-Lite compile and Vega parse give (the oracle: the path every render took before).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { compiledDashboardChartsModule, vegaLiteVersion, vegaVersion } from '../../scripts/compile-charts.js';
import { compileDataflow, dataflowOf, fullSpec, liveSpec, loadCurveSpec, renderSvg, TITLE_SLOT, trendChart, trendSpec } from '../../src/dashboard/charts.js';
import { COMPILED_WITH } from '../../src/dashboard/compiled-charts.js';
import { TREND_METRICS } from '../../src/history/trend-metrics.js';

/** The SVG as every render made it before the table: compile, parse, view. */
async function oracle(spec: TopLevelSpec, values: object[]): Promise<string> {
  const view = new vega.View(vega.parse(compile(fullSpec(spec)).spec), { renderer: 'none' });
  view.data('points', values);
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const trendPoints = Array.from({ length: 40 }, (_, i) => ({
  t: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
  run_id: `run-${i}`,
  value: 100 + 10 * Math.sin(i),
  status: i === 39 ? 'regression' : i % 7 === 3 ? 'not comparable' : 'compared',
}));
const curvePoints = [2, 4, 8].flatMap((load, i) => [
  { load, series: 'TTFT p50', value: 20 + i },
  { load, series: 'TTFT p99', value: 50 + 3 * i },
  { load, series: 'output tok/s', value: 400 * load },
]);
const livePoints = [0.5, 1, 1.5, 2].map((elapsed_s, i) => ({ elapsed_s, request_rate: 3 + i, ttft_p99_ms: i === 1 ? null : 40 + i }));

describe('dashboard charts compiled ahead of time', () => {
  it('the committed table is what `npm run charts:compile` writes now (run it after changing a chart, vega-lite or vega)', async () => {
    expect(COMPILED_WITH).toEqual({ 'vega-lite': vegaLiteVersion(), vega: vegaVersion() });
    const committed = readFileSync(fileURLToPath(new URL('../../src/dashboard/compiled-charts.ts', import.meta.url)), 'utf8');
    expect(committed).toBe(await compiledDashboardChartsModule());
  });

  it('one trend entry serves every metric: its title put in is the dataflow compiled with that title', async () => {
    const slotted = await dataflowOf(trendSpec(TITLE_SLOT));
    expect(slotted).toContain(TITLE_SLOT);
    for (const metric of Object.keys(TREND_METRICS)) {
      expect(slotted.replaceAll(TITLE_SLOT, metric), metric).toBe(await compileDataflow(fullSpec(trendSpec(metric))));
    }
  });

  it('every chart drawn from the table is the SVG a fresh compile draws', async () => {
    for (const metric of ['ttft_p99_ms', 'output_throughput', 'cost_per_success']) {
      expect(await renderSvg(trendChart(metric), trendPoints), metric).toBe(await oracle(trendSpec(metric), trendPoints));
    }
    expect(await renderSvg(trendChart('accuracy'), [])).toBe(await oracle(trendSpec('accuracy'), []));
    expect(await renderSvg({ spec: loadCurveSpec() }, curvePoints)).toBe(await oracle(loadCurveSpec(), curvePoints));
    expect(await renderSvg({ spec: liveSpec() }, livePoints)).toBe(await oracle(liveSpec(), livePoints));
  });

  it('a title that is not a plain word, and a spec not in the table, are compiled as they are', async () => {
    const odd = 'TTFT "p99" \\ ms';
    expect(await renderSvg(trendChart(odd), trendPoints)).toBe(await oracle(trendSpec(odd), trendPoints));
    const wider = { ...loadCurveSpec(), description: 'not in the table' } as TopLevelSpec;
    expect(await renderSvg({ spec: wider }, curvePoints)).toBe(await oracle(wider, curvePoints));
    // Twice from the same process-compiled dataflow: the same SVG (a view does not change the dataflow it is given).
    expect(await renderSvg({ spec: wider }, curvePoints)).toBe(await oracle(wider, curvePoints));
  });
});
