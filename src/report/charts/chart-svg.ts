/**
 * A report chart as SVG, rendered in Node with vega's headless View (the Markdown export). Its
 * own module so that writing a report.html, which only compiles specs, does not load the Vega
 * runtime and its d3 dependencies.
 */
import * as vega from 'vega';
import { compileChart, type Chart, type Datasets } from './chart.js';

/** Renders a chart to a standalone SVG document in Node (no browser, no canvas). */
export async function chartToSvg(chart: Chart, data: Datasets): Promise<string> {
  const view = new vega.View(vega.parse(await compileChart(chart)), { renderer: 'none' });
  for (const name of chart.datasets) view.data(name, (data[name] ?? []) as object[]);
  await view.runAsync();
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
