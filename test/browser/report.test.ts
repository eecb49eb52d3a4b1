/**
 * The HTML report in a real browser: it loads from disk with no console error and no request
 * but its own file, every chart draws data marks, and markup from a server never runs.
 * A screenshot is kept as artifacts/report.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/render-report.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { INJECTED, makeReportFixture, type ReportFixture } from '../report/report-fixture.js';
import { makeSweepFixture } from '../report/sweep-fixture.js';

let fx: ReportFixture;
let browser: Browser;
beforeAll(async () => {
  fx = await makeReportFixture();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  fx?.cleanup();
});

describe('HTML report in Chromium', () => {
  it('loads offline, draws every chart, runs no injected markup', async () => {
    const file = join(fx.dir, 'report.html');
    writeFileSync(file, await renderReport(fx.dir));
    const url = pathToFileURL(file).href;
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('request', (r) => requests.push(r.url()));
    // Anything but the report itself is refused (and recorded above).
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));

    await page.goto(url);
    await page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });

    const state = await page.evaluate(() => (globalThis as unknown as { infermeterReport: { total: number; rendered: number; failed: number } }).infermeterReport);
    const boxes = await page.locator('.chart-box').count();
    expect(state.failed).toBe(0);
    expect(state.rendered).toBe(state.total);
    expect(boxes).toBe(state.total);
    expect(boxes).toBeGreaterThanOrEqual(18);

    // Every chart: an SVG whose mark groups hold drawn items (bars, lines, points).
    const marks = await page.$$eval('.chart-box', (els) =>
      els.map((el) => ({ id: el.id, svg: el.querySelector('svg') !== null, items: el.querySelectorAll('g.role-mark > path, g.role-mark > g, g.mark-line path, g.mark-rect path').length })),
    );
    for (const m of marks) {
      expect(m.svg, m.id).toBe(true);
      expect(m.items, m.id).toBeGreaterThan(0);
    }

    // Hostile text is shown as text and never ran.
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    const text = await page.locator('body').innerText();
    expect(text).toContain(INJECTED.output);
    expect(text).toContain(INJECTED.error);
    expect(await page.title()).toContain(INJECTED.model);

    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);

    mkdirSync('artifacts', { recursive: true });
    await page.screenshot({ path: join('artifacts', 'report.png'), fullPage: true });
    await page.close();
  }, 90_000);

  it('draws a sweep report\'s load curves the same way', async () => {
    const dir = await makeSweepFixture();
    const file = join(dir, 'report.html');
    writeFileSync(file, await renderReport(dir));
    const url = pathToFileURL(file).href;
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    await page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
    const state = await page.evaluate(() => (globalThis as unknown as { infermeterReport: { total: number; rendered: number; failed: number } }).infermeterReport);
    expect(state).toEqual({ total: 4, rendered: 4, failed: 0 });
    const lines = await page.$$eval('.chart-box', (els) => els.map((el) => el.querySelectorAll('g.mark-line path, g.mark-rule line, g.mark-rule path').length));
    for (const n of lines) expect(n).toBeGreaterThan(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    expect(requests).toEqual([url]);
    await page.screenshot({ path: join('artifacts', 'sweep-report.png'), fullPage: true });
    await page.close();
  }, 90_000);
});
