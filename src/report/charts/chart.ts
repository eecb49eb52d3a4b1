/**
 * A report chart: a Vega-Lite spec over named datasets. The spec is compiled to Vega once
 * in Node; the HTML page renders it in the browser with the Vega runtime it inlines, and the
 * Markdown export renders the same spec to SVG here (vega's headless View), so both show the
 * same chart. Data are bound by name at render time, so a dataset shared by several charts is
 * embedded once.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

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
}

export type Datasets = Record<string, unknown[]>;

export const CHART_WIDTH = 560;
export const CHART_HEIGHT = 220;

/** Shared look: one font stack, quiet axes; `autosize` so a legend does not squeeze the plot. */
export const CHART_CONFIG = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'top' },
  view: { stroke: null },
} as const;

export function baseSpec(): { width: number; height: number; padding: { left: number; top: number; bottom: number; right: number }; config: typeof CHART_CONFIG } {
  return { width: CHART_WIDTH, height: CHART_HEIGHT, padding: { left: 5, top: 5, bottom: 5, right: 20 }, config: CHART_CONFIG };
}

/** The Vega spec of a chart (what the browser's Vega runtime parses). */
export function compileChart(chart: Chart): vega.Spec {
  return compile(chart.spec).spec;
}

/** Renders a chart to a standalone SVG document in Node (no browser, no canvas). */
export async function chartToSvg(chart: Chart, data: Datasets): Promise<string> {
  const view = new vega.View(vega.parse(compileChart(chart)), { renderer: 'none' });
  for (const name of chart.datasets) view.data(name, (data[name] ?? []) as object[]);
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
