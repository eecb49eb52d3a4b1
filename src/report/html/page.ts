/**
 * The report page: one self-contained HTML file. Styles, the Vega runtime, the compiled chart
 * specs and their data are all inline; a Content-Security-Policy forbids every fetch
 * (default-src 'none') and runs only the page's own scripts (a per-page nonce), so even a
 * value that escaped escaping could not load or run anything.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { compileChart, type Chart, type Datasets } from '../charts/chart.js';
import { escapeHtml as e, jsonForScript, scriptSource } from './escape.js';
import { PAGE_CSS } from './page-style.js';

export interface PageSection {
  id: string;
  title: string;
  /** Trusted HTML built by this module's callers from escaped parts. */
  html: string;
  charts: Chart[];
}

export interface Page {
  title: string;
  /** Small facts under the title (label, value), escaped here. */
  facts: Array<[string, string]>;
  sections: PageSection[];
  datasets: Datasets;
  generator: string;
}

let vegaRuntime: string | null = null;

/** vega.min.js from the installed vega package (its exports map hides build/, so resolve the entry and go up). */
export function vegaRuntimeSource(): string {
  if (vegaRuntime === null) {
    const entry = createRequire(import.meta.url).resolve('vega');
    vegaRuntime = readFileSync(join(dirname(entry), 'vega.min.js'), 'utf8');
  }
  return vegaRuntime;
}

/** Renders every chart into its container; failures are shown in place and logged. */
const BOOT = `(() => {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const state = { total: data.charts.length, rendered: 0, failed: 0 };
  window.infermeterReport = state;
  const hasSignal = (view, name) => { try { view.signal(name); return true; } catch { return false; } };
  Promise.all(data.charts.map(async (c) => {
    const el = document.getElementById('chart-' + c.id);
    try {
      const view = new vega.View(vega.parse(c.vega), { renderer: 'svg', container: el, hover: true });
      for (const name of c.datasets) view.data(name, data.datasets[name] || []);
      await view.runAsync();
      // Fit the box: shrink a chart wider than it (a phone), widen a wide one to fill it.
      const svg = el.querySelector('svg');
      const over = (svg ? svg.getBoundingClientRect().width : el.scrollWidth) - el.clientWidth;
      if (over > 0 || (c.wide && over < -40)) {
        const name = hasSignal(view, 'child_width') ? 'child_width' : 'width';
        view.signal(name, Math.min(1400, Math.max(160, view.signal(name) - over - 2)));
        await view.resize().runAsync();
      }
      state.rendered++;
    } catch (err) {
      state.failed++;
      el.textContent = 'This chart could not be drawn: ' + err;
      console.error('chart ' + c.id, err);
    }
  })).then(() => { document.body.dataset.charts = 'done'; });
})();`;

function chartFigure(c: Chart): string {
  return `<figure class="chart${c.wide ? ' wide' : ''}"><figcaption><strong>${e(c.title)}</strong> ${e(c.caption)}</figcaption><div class="chart-box" id="chart-${e(c.id)}" data-chart="${e(c.id)}"></div></figure>`;
}

export async function renderPage(page: Page): Promise<string> {
  const nonce = randomBytes(16).toString('base64');
  const charts = page.sections.flatMap((s) => s.charts);
  const used = new Set(charts.flatMap((c) => c.datasets));
  const datasets: Datasets = {};
  for (const name of used) datasets[name] = page.datasets[name] ?? [];
  const payload = { charts: await Promise.all(charts.map(async (c) => ({ id: c.id, datasets: c.datasets, vega: await compileChart(c), wide: c.wide === true }))), datasets };
  const csp = `default-src 'none'; script-src 'nonce-${nonce}' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'`;
  const nav = page.sections.map((s) => `<a href="#${e(s.id)}">${e(s.title)}</a>`).join('');
  const sections = page.sections
    .map((s) => `<section id="${e(s.id)}"><h2>${e(s.title)}</h2>${s.html}${s.charts.length ? `<div class="charts">${s.charts.map(chartFigure).join('')}</div>` : ''}</section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${e(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${e(page.generator)}">
<title>${e(page.title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>${e(page.title)}</h1><dl class="facts">${page.facts.map(([k, v]) => `<div><dt>${e(k)}</dt><dd>${e(v)}</dd></div>`).join('')}</dl><nav>${nav}</nav></header>
<main>
${sections}
</main>
<footer>Written by ${e(page.generator)}. This file is self-contained: it opens offline and makes no network requests.</footer>
<script type="application/json" id="report-data">${jsonForScript(payload)}</script>
<script nonce="${nonce}">${scriptSource(vegaRuntimeSource())}</script>
<script nonce="${nonce}">${BOOT}</script>
</body>
</html>
`;
}
