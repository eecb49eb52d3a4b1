/**
 * The HTML report in a real browser at a phone's and a desktop's width: it loads from disk with
 * no console error and no request but its own file, every chart draws data marks and its SLO
 * rules, the first screen holds the verdict, the six figures and the bottleneck, nothing sticks
 * out of the viewport, and markup from a server never runs. Screenshots go under
 * artifacts/screenshots/ (paths printed); INFERMETER_DOCS_IMG=1 also refreshes docs/img/.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/render-report.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { INJECTED, makeReportFixture, type ReportFixture } from '../report/report-fixture.js';
import { makeSweepFixture } from '../report/sweep-fixture.js';
import { layoutOf, openAt, screenshot, SCREENSHOT_DIR, WIDTHS, type Opened } from './page-check.js';

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

type ReportState = { total: number; rendered: number; failed: number };

/** Opens a report file at `width` px, refusing every other request, and waits for its charts. */
async function openReport(file: string, width: number): Promise<Opened & { url: string; state: ReportState }> {
  const url = pathToFileURL(file).href;
  const o = await openAt(browser, width, { onlyUrl: url });
  await o.page.goto(url);
  await o.page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
  const state = await o.page.evaluate(() => (globalThis as unknown as { infermeterReport: ReportState }).infermeterReport);
  return { ...o, url, state };
}

/** Per chart: drawn data items, and the items of its SLO rule layer (Vega names the mark's group `slo_rule_marks`). */
async function chartMarks(page: Opened['page']): Promise<Map<string, { items: number; slo: number }>> {
  const list = await page.$$eval('.chart-box', (els) =>
    els.map((el) => ({
      id: el.getAttribute('data-chart') ?? '',
      items: el.querySelectorAll('g.role-mark > path, g.role-mark > g, g.mark-line path, g.mark-rect path').length,
      slo: el.querySelectorAll('g.slo_rule_marks line, g.slo_rule_marks path').length,
    })),
  );
  return new Map(list.map((m) => [m.id, { items: m.items, slo: m.slo }]));
}

async function expectCleanLayout(o: Opened, width: number): Promise<void> {
  const layout = await layoutOf(o.page);
  expect(layout.viewport).toBe(width);
  expect(layout.scrollWidth, 'horizontal page scroll').toBeLessThanOrEqual(width);
  expect(layout.overflowing, 'elements past the viewport').toEqual([]);
}

describe('HTML report in Chromium', () => {
  for (const width of WIDTHS) {
    it(`a run at ${width} px: first screen, every chart with its SLO rules, no overflow, offline, no injected markup`, async () => {
      const file = join(fx.dir, 'report.html');
      writeFileSync(file, await renderReport(fx.dir));
      const o = await openReport(file, width);
      const { page, state } = o;
      expect(state.failed).toBe(0);
      expect(state.rendered).toBe(state.total);
      expect(await page.locator('.chart-box').count()).toBe(state.total);
      expect(state.total).toBeGreaterThanOrEqual(19);

      // Every chart: an SVG whose mark groups hold drawn items (bars, lines, points).
      const marks = await chartMarks(page);
      for (const [id, m] of marks) expect(m.items, id).toBeGreaterThan(0);
      // The fixture's SLOs bound TTFT (p99 ≤ 500 ms, and ≤ 300 ms per request) and TPOT (≤ 40 ms per request).
      const expected: Record<string, number> = { 'hist-ttft': 2, 'cdf-ttft': 2, 'ts-ttft': 2, 'hist-tpot': 1, 'cdf-tpot': 1, 'ts-tpot': 1, timeline: 3, 'hist-itl': 0, 'cdf-itl': 0, 'hist-e2el': 0, 'cdf-e2el': 0 };
      for (const [id, n] of Object.entries(expected)) expect(marks.get(id)?.slo, `SLO rules on ${id}`).toBe(n);

      // The first screen: the verdict and its gates, the six figures, the bottleneck with evidence.
      expect(await page.getAttribute('.verdict', 'data-verdict')).toBe('fail');
      expect(await page.locator('ul.gates li').count()).toBe(2);
      const figures = await page.locator('.figure').allInnerTexts();
      expect(figures.map((f) => f.split('\n')[0])).toEqual(['TTFT p50', 'TTFT p99', 'TPOT p50', 'TPOT p99', 'Output tokens/s', 'Peak KV cache and GPU memory']);
      expect(figures[1]).toContain('SLO p99 ≤ 500 ms: FAIL');
      expect(await page.getAttribute('.bottleneck', 'data-bottleneck')).toBe('queueing');
      if (width === 1440) {
        const box = await page.locator('.bottleneck').boundingBox();
        expect(box!.y + box!.height, 'bottleneck line on the first screen').toBeLessThanOrEqual(900);
      }
      // Numbers never wrap: every numeric cell is one line high.
      const wrapped = await page.$$eval('table.num td, .fig-value .num', (els) => els.filter((el) => el.getClientRects().length > 1).map((el) => el.textContent));
      expect(wrapped).toEqual([]);
      await expectCleanLayout(o, width);

      // Hostile text is shown as text and never ran.
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      const text = await page.locator('body').innerText();
      expect(text).toContain(INJECTED.output);
      expect(text).toContain(INJECTED.error);
      expect(await page.title()).toContain(INJECTED.model);

      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([o.url]);
      await screenshot(page, `report-${width}`, { docs: true });
      await screenshot(page, `report-${width}-full`, { fullPage: true });
      if (width === 1440) {
        await page.locator('#timeline').scrollIntoViewIfNeeded();
        await page.locator('#timeline figure').screenshot({ path: join(SCREENSHOT_DIR, 'report-timeline.png') });
        console.log(`screenshot: ${join(process.cwd(), SCREENSHOT_DIR, 'report-timeline.png')}`);
        if (process.env.INFERMETER_DOCS_IMG === '1') copyFileSync(join(SCREENSHOT_DIR, 'report-timeline.png'), join('docs', 'img', 'report-timeline.png'));
      }
      await page.close();
    }, 90_000);

    it(`a sweep at ${width} px: the load curves, no overflow, offline`, async () => {
      const dir = await makeSweepFixture();
      const file = join(dir, 'report.html');
      writeFileSync(file, await renderReport(dir));
      const o = await openReport(file, width);
      const { page, state } = o;
      expect(state.failed).toBe(0);
      expect(state.rendered).toBe(state.total);
      const marks = await chartMarks(page);
      for (const [id, m] of marks) expect(m.items, id).toBeGreaterThan(0);
      // The load curves and the per-stage CDFs, with the goodput bound (TTFT ≤ 300 ms per request) on the TTFT ones only.
      expect([...marks.keys()]).toEqual(['sweep-ttft', 'sweep-tpot', 'sweep-throughput', 'sweep-tokens', 'cdfs-ttft', 'cdfs-tpot', 'cdfs-itl', 'cdfs-e2el']);
      for (const [id, m] of marks) expect(m.slo, `SLO rules on ${id}`).toBe(id === 'sweep-ttft' || id === 'cdfs-ttft' ? 1 : 0);
      // Stages are numbered from 1, as the CLI prints them; the server table names each stage's bottleneck.
      const text = await page.locator('body').innerText();
      expect(text).toContain('stage 1 (list)');
      expect(text).not.toContain('#0');
      expect(text).toContain('Saturation at 60 req/s (stage 3)');
      expect(await page.locator('#summary table').count()).toBe(2);
      await expectCleanLayout(o, width);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([o.url]);
      await screenshot(page, `sweep-report-${width}`, { docs: width === 1440 });
      await screenshot(page, `sweep-report-${width}-full`, { fullPage: true });
      await page.close();
    }, 90_000);
  }
});
