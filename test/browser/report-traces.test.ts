/**
 * The report of a run with --otlp-receiver against the simulated engine over HTTP, in Chromium:
 * the slowest requests as stacked bars (one bar per listed request, one segment per row of its
 * data) and queue, prefill and decode over the run (three lines), without console errors,
 * foreign requests or overflow at a phone's and a desktop's width.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../../src/observe/otlp/otlp-receiver.js';
import { slowestRows } from '../../src/report/charts/trace-charts.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer } from '../../src/sim/index.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { layoutOf, openAt, screenshot, WIDTHS } from './page-check.js';

let browser: Browser;
let report: string;
let result: RunResult;

beforeAll(async () => {
  const probe = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, () => {}))!;
  const port = Number(new URL(probe.url).port);
  await probe.close();
  const sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, otlpTracesEndpoint: `http://127.0.0.1:${port}/v1/traces` });
  try {
    const run = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '40', '--request-rate', '40',
      '--random-input-len', '256', '--random-output-len', '8', '--otlp-receiver', `127.0.0.1:${port}`, '--result-dir', tempDir('report-traces'), '--progress', 'none', '--allow-invalid', '--no-metrics',
    ]);
    expect([0, 5], run.stderr).toContain(run.code);
    report = /Report: (.+)/.exec(run.stdout)![1]!.trim();
  } finally {
    await sim.close();
  }
  result = JSON.parse(readFileSync(join(dirname(report), 'result.json'), 'utf8')) as RunResult;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('the slowest requests explained, in Chromium', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: one stacked bar per slow request, three lines over the run`, async () => {
      const url = pathToFileURL(report).href;
      const o = await openAt(browser, width, { onlyUrl: url });
      await o.page.goto(url);
      await o.page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
      const state = await o.page.evaluate(() => (globalThis as unknown as { infermeterReport: { total: number; rendered: number; failed: number } }).infermeterReport);
      expect(state.failed).toBe(0);
      expect(state.rendered).toBe(state.total);
      const t = result.traces!;
      expect(t.slowest_requests).toHaveLength(20);
      const bars = o.page.locator('#traces .chart-box[data-chart="trace-slowest"] g.mark-rect path');
      // one rect per segment drawn, and the segments belong to the 20 listed requests
      expect(await bars.count()).toBe(slowestRows(t).length);
      const labels = await bars.evaluateAll((els) => els.map((el) => /request: (#\d+)/.exec(el.getAttribute('aria-label') ?? '')?.[1] ?? ''));
      expect(new Set(labels)).toEqual(new Set(t.slowest_requests.map((q) => `#${q.id}`)));
      const lines = o.page.locator('#traces .chart-box[data-chart="trace-over-time"] g.mark-line path');
      expect(await lines.count()).toBe(3);
      expect(await o.page.locator('#traces').innerText()).toContain('p99 TTFT requests spent');
      const layout = await layoutOf(o.page);
      expect(layout.scrollWidth, 'horizontal page scroll').toBeLessThanOrEqual(width);
      expect(layout.overflowing, 'elements past the viewport').toEqual([]);
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([url]);
      await screenshot(o.page, `report-traces-${width}`);
      await o.page.close();
    }, 90_000);
  }
});
