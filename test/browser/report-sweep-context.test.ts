/**
 * A single run's report when the results folder's history holds a sweep of its target and
 * workload: the first screen draws the sweep's p99 curve with the run's own point and says in
 * words where the run sits; at a phone's and a desktop's width, without console errors, requests
 * or overflow. Real runs in virtual time (`sim sweep`, then `sim run` into the same folder).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { layoutOf, openAt, screenshot, WIDTHS } from './page-check.js';

const root = tempDir('report-sweep-context');
const results = join(root, 'results');
const WORKLOAD = ['--num-prompts', '60', '--random-input-len', '512', '--random-output-len', '64', '--seed', '3', '--result-dir', results];
let browser: Browser;
let report: string;
let alone: string;

beforeAll(async () => {
  const sweep = await runCli(['sim', 'sweep', '--request-rates', '5,10,20,40,80', ...WORKLOAD]);
  expect(sweep.code, sweep.stderr).toBe(0);
  const run = await runCli(['sim', 'run', '--request-rate', '30', ...WORKLOAD]);
  expect(run.code, run.stderr).toBe(0);
  report = /Report: (.+)/.exec(run.stdout)![1]!.trim();
  // Another workload in the same folder: no sweep of its setup, so no curve.
  const other = await runCli(['sim', 'run', '--request-rate', '30', ...WORKLOAD, '--random-output-len', '32']);
  expect(other.code, other.stderr).toBe(0);
  alone = /Report: (.+)/.exec(other.stdout)![1]!.trim();
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a run on its sweep’s curve, in Chromium', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: the curve on the first screen with the run's point, the caption in words`, async () => {
      const url = pathToFileURL(report).href;
      const o = await openAt(browser, width, { onlyUrl: url });
      await o.page.goto(url);
      await o.page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
      const state = await o.page.evaluate(() => (globalThis as unknown as { infermeterReport: { total: number; rendered: number; failed: number } }).infermeterReport);
      expect(state.failed).toBe(0);
      expect(state.rendered).toBe(state.total);
      const chart = o.page.locator('#overview .chart-box[data-chart="overview-sweep"]');
      expect(await chart.count()).toBe(1);
      // Two lines (TTFT and E2EL p99) over five stages, and the run's two diamonds.
      expect(await chart.locator('g.mark-line path').count()).toBe(2);
      expect(await chart.locator('g.mark-symbol path').count()).toBeGreaterThanOrEqual(5 * 2 + 2);
      const caption = await o.page.locator('#overview .sweep-context').innerText();
      expect(caption).toMatch(/^Sweep \S+-sweep \(5 stages, 5 req\/s to 80 req\/s, started .*\) ran the same target and workload\. This run at 30 req\/s sits (past|below|at) /);
      const layout = await layoutOf(o.page);
      expect(layout.scrollWidth, 'horizontal page scroll').toBeLessThanOrEqual(width);
      expect(layout.overflowing, 'elements past the viewport').toEqual([]);
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([url]);
      await screenshot(o.page, `report-sweep-context-${width}`);
      await o.page.close();
    }, 90_000);
  }

  it('a run of another workload: no curve and no empty box', async () => {
    const url = pathToFileURL(alone).href;
    const o = await openAt(browser, 1440, { onlyUrl: url });
    await o.page.goto(url);
    await o.page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
    expect(await o.page.locator('#overview .chart-box').count()).toBe(0);
    expect(await o.page.locator('.sweep-context').count()).toBe(0);
    expect(o.problems).toEqual([]);
    await o.page.close();
  }, 60_000);
});
