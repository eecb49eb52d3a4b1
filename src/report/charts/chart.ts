/**
 * A report chart: a Vega-Lite spec over named datasets. The spec is compiled to Vega in Node;
 * the HTML page renders it in the browser with the Vega runtime it inlines, and the Markdown
 * export renders the same spec to SVG (chart-svg.ts, vega's headless View), so both show the
 * same chart. Data are bound by name at render time, so a dataset shared by several charts is
 * embedded once.
 *
 * The reports' specs are a small finite set (chart-variants.ts), compiled ahead of time into
 * compiled-charts.ts: a spec found there is not compiled again, so writing a report does not
 * load Vega-Lite (and the Vega it imports). Any other spec is compiled here as before.
 */
import type * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { COMPILED_CHARTS } from './compiled-charts.js';

export interface Chart {
  /** Stable id (also the HTML element id suffix): letters, digits, dashes. */
  id: string;
  title: string;
  /** One sentence under the chart: what a point is, which records count. */
  caption: string;
  /** Vega-Lite spec whose data are `{name: …}` references to datasets. */
  spec: TopLevelSpec;
  /** The dataset names the spec reads. */
  datasets: string[];
  /** Spans the page's chart grid and is widened to fill it (a tall chart of many rows). */
  wide?: boolean;
}

export type Datasets = Record<string, unknown[]>;

export const CHART_WIDTH = 560;
export const CHART_HEIGHT = 220;

/** Shared look: one font stack, quiet axes; `autosize` so a legend does not squeeze the plot. */
export const CHART_CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6', labelSeparation: 6 },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'top' },
  view: { stroke: null },
} as const;

export function baseSpec(): { width: number; height: number; padding: { left: number; top: number; bottom: number; right: number }; config: typeof CHART_CONFIG } {
  return { width: CHART_WIDTH, height: CHART_HEIGHT, padding: { left: 5, top: 5, bottom: 5, right: 20 }, config: CHART_CONFIG };
}

let table: Map<string, vega.Spec> | null = null;

/** The ahead-of-time Vega spec of a Vega-Lite spec (a fresh object), or null when it is not in the table. */
export function precompiledChart(spec: TopLevelSpec): vega.Spec | null {
  table ??= new Map(JSON.parse(COMPILED_CHARTS) as Array<[string, vega.Spec]>);
  const compiled = table.get(JSON.stringify(spec));
  return compiled === undefined ? null : structuredClone(compiled);
}

/** Compiles a Vega-Lite spec with Vega-Lite itself (loaded on first use). */
export async function compileWithVegaLite(spec: TopLevelSpec): Promise<vega.Spec> {
  const { compile } = await import('vega-lite');
  return compile(spec).spec;
}

/** The Vega spec of a chart (what the browser's Vega runtime parses). */
export async function compileChart(chart: Chart): Promise<vega.Spec> {
  return precompiledChart(chart.spec) ?? compileWithVegaLite(chart.spec);
}

/** The dataset of SLO thresholds every chart of a bounded metric reads (data/slo-rules.ts). */
export const SLO_RULES = 'slo_rules';

/** One view of a layered Vega-Lite spec. */
export type LayerItem = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];

/**
 * Layers that draw the SLO thresholds of `metrics` as dashed red rules with their label: vertical
 * on a chart whose x is the metric (histogram, CDF), horizontal where y is (over time, load
 * curves). Labels sit inside the plot, so none is clipped at its edge.
 */
export function sloRuleLayers(metrics: readonly string[], axis: 'x' | 'y'): LayerItem[] {
  const filter = `indexof(${JSON.stringify(metrics)}, datum.metric) >= 0`;
  const at = { field: 'value', type: 'quantitative' } as const;
  const rule = { type: 'rule', color: '#cf222e', strokeDash: [6, 3], strokeWidth: 1.5 } as const;
  const text =
    axis === 'x'
      ? { type: 'text', color: '#cf222e', angle: 270, align: 'right', baseline: 'bottom', dx: -4, dy: -3, y: 0, fontSize: 10.5 }
      : { type: 'text', color: '#cf222e', align: 'right', baseline: 'bottom', dy: -3, x: 'width', fontSize: 10.5 };
  return [
    { name: 'slo_rule', data: { name: SLO_RULES }, transform: [{ filter }], mark: rule, encoding: { [axis]: at } },
    { data: { name: SLO_RULES }, transform: [{ filter }], mark: text, encoding: { [axis]: at, text: { field: 'label' } } },
  ] as LayerItem[];
}
