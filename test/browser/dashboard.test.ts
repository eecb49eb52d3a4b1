/**
 * The dashboard in headless Chromium: it loads with no console error and no request leaving
 * 127.0.0.1, shows the runs, draws its charts, follows a live run, and shows a hostile model
 * name as text. A screenshot is kept as artifacts/dashboard.png.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from '../../src/dashboard/serve.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { frame, HOSTILE_MODEL, makeFixture, type Fixture } from '../dashboard/fixture.js';

let fx: Fixture;
let dash: RunningDashboard;
let browser: Browser;

beforeAll(async () => {
  fx = await makeFixture();
  dash = await startDashboard({ resultsDir: fx.results, port: 0, pollMs: 50 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await dash?.close();
});

describe('dashboard in a browser', () => {
  it('loads offline and clean, draws its charts, follows a live run', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });

    await page.goto(`${dash.url}/`);
    await page.waitForSelector('body[data-loaded="true"]');
    expect(await page.locator('#runs tbody tr').count()).toBe(fx.runIds.length);

    // The hostile model name is text in a cell, not an element.
    expect(await page.locator('#runs tbody').innerText()).toContain(HOSTILE_MODEL);
    expect(await page.locator('#runs tbody img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned ?? 0)).toBe(0);

    // Charts: the images decode (an SVG that failed to render would not).
    const loaded = (sel: string) => page.waitForFunction((s) => {
      const img = (globalThis as unknown as { document: { querySelector(q: string): { complete: boolean; naturalWidth: number } | null } }).document.querySelector(s);
      return img !== null && img.complete && img.naturalWidth > 0;
    }, sel);
    await loaded('#trend-chart');
    await loaded('#curve-chart');
    await page.locator('#runs tbody tr').first().click();
    await loaded('#trend-chart');

    // A run in progress: its frames arrive over server-sent events.
    await page.locator('#live-list button').first().click();
    await page.waitForFunction(() => /2\/10/.test((globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText));
    appendFileSync(join(fx.results, fx.liveId, 'progress.jsonl'), `${JSON.stringify(frame(7, 10))}\n`);
    await page.waitForFunction(() => /7\/10 \(70%\)/.test((globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText));
    await loaded('#live-chart');

    mkdirSync('artifacts', { recursive: true });
    await page.screenshot({ path: join('artifacts', 'dashboard.png'), fullPage: true });
    expect(errors).toEqual([]);
    const origin = new URL(dash.url).origin;
    expect(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});
