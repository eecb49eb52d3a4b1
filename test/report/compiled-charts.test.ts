import { describe, expect, it } from 'vitest';
import { compile } from 'vega-lite';
import { compiledChartsModule, vegaLiteVersion } from '../../scripts/compile-charts.js';
import { compileChart, precompiledChart, type Chart } from '../../src/report/charts/chart.js';
import { chartVariants } from '../../src/report/charts/chart-variants.js';
import { COMPILED_CHARTS, COMPILED_WITH_VEGA_LITE } from '../../src/report/charts/compiled-charts.js';
import { distributionCharts } from '../../src/report/charts/distribution-charts.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

describe('charts compiled ahead of time', () => {
  it('the committed table is what `npm run charts:compile` writes now (run it after changing a chart or vega-lite)', () => {
    expect(COMPILED_WITH_VEGA_LITE).toBe(vegaLiteVersion());
    const committed = readFileSync(fileURLToPath(new URL('../../src/report/charts/compiled-charts.ts', import.meta.url)), 'utf8');
    expect(committed).toBe(compiledChartsModule());
  });

  it('every variant is in the table, equal to what Vega-Lite compiles from it', () => {
    const variants = chartVariants();
    expect(variants.length).toBeGreaterThan(30);
    for (const c of variants) expect(precompiledChart(c.spec), c.id).toEqual(compile(c.spec).spec);
    expect((JSON.parse(COMPILED_CHARTS) as unknown[]).length).toBe(new Set(variants.map((c) => JSON.stringify(c.spec))).size);
  });

  it('a hit is a fresh object: changing it does not change the table', () => {
    const spec = chartVariants()[0]!.spec;
    const a = precompiledChart(spec) as Record<string, unknown>;
    a.width = -1;
    expect((precompiledChart(spec) as Record<string, unknown>).width).not.toBe(-1);
  });

  it('a spec not in the table is compiled by Vega-Lite', async () => {
    const [hist] = distributionCharts([{ metric: 'ttft_ms', label: 'a label no report uses', count: 1, scale: 'log', at_or_below_zero: 0, bins: [], cdf: [] }]);
    const chart: Chart = hist!;
    expect(precompiledChart(chart.spec)).toBeNull();
    expect(await compileChart(chart)).toEqual(compile(chart.spec).spec);
  });
});
