/**
 * The dashboard in headless Chromium: it loads with no console error and no request leaving
 * 127.0.0.1, shows the runs, draws its charts, follows a live run, and shows a hostile model
 * name as text. A run with answer checks shows its quality figures (list, detail, live view),
 * checked against counts made here from its records. A screenshot is kept as artifacts/dashboard.png.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from '../../src/dashboard/serve.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { EVAL_RUN, frame, HOSTILE_MODEL, makeFixture, type Fixture } from '../dashboard/fixture.js';
import { runCli } from '../helpers/cli.js';
import { makeSweepFixture } from '../report/sweep-fixture.js';
import { layoutOf, openAt, screenshot, WIDTHS } from './page-check.js';

let fx: Fixture;
let dash: RunningDashboard;
let browser: Browser;

beforeAll(async () => {
  fx = await makeFixture({ withQuality: true });
  dash = await startDashboard({ resultsDir: fx.results, port: 0, pollMs: 50 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await dash?.close();
});

describe('dashboard in a browser', () => {
  for (const width of WIDTHS) {
    it(`fits ${width} px: no page scroll, nothing past the viewport, the runs table in its own box, a column chooser`, async () => {
      const o = await openAt(browser, width);
      await o.page.goto(`${dash.url}/`);
      await o.page.waitForSelector('body[data-loaded="true"]');
      const layout = await layoutOf(o.page);
      expect(layout.overflowing).toEqual([]);
      expect(layout.scrollWidth, 'horizontal page scroll').toBeLessThanOrEqual(width);
      const box = await o.page.$eval('#runs', (t) => ({ table: t.getBoundingClientRect().width, box: t.parentElement!.getBoundingClientRect().width }));
      // At a desktop's width the whole table is on screen: verdict and links included.
      if (width === 1440) expect(box.table).toBeLessThanOrEqual(box.box);
      // The chooser: target and spec hidden by default; ticking target shows it.
      const header = () => o.page.locator('#runs thead th').evaluateAll((ths) => ths.filter((th) => (th as unknown as { offsetParent: unknown }).offsetParent !== null).map((th) => th.textContent));
      expect(await header()).not.toContain('target');
      expect(await header()).toContain('verdict');
      await o.page.locator('#columns summary').click();
      await o.page.locator('#column-list input[data-column="target"]').check();
      expect(await header()).toContain('target');
      await o.page.locator('#column-list input[data-column="target"]').uncheck();
      // Plurals and ticks: "1 run", never "1 runs".
      expect(await o.page.locator('body').innerText()).not.toMatch(/\b1 runs\b|\b1 loads\b/);
      expect(o.problems.filter((p) => p.startsWith('error') || p.startsWith('pageerror'))).toEqual([]);
      await screenshot(o.page, `dashboard-${width}`, { docs: width === 1440 });
      await o.page.close();
    }, 60_000);
  }

  it('shows a sweep as one row that expands to its stages, and draws load curves from sweep stages', async () => {
    const sweepDir = await makeSweepFixture();
    const root = join(sweepDir, '..');
    const re = await runCli(['history', '--results-dir', root, '--reindex']);
    expect(re.code, re.stderr).toBe(0);
    const d = await startDashboard({ resultsDir: root, port: 0, pollMs: 50 });
    try {
      const o = await openAt(browser, 1440);
      await o.page.goto(`${d.url}/`);
      await o.page.waitForSelector('body[data-loaded="true"]');
      const head = o.page.locator('#runs tbody tr.sweep');
      expect(await head.count()).toBe(1);
      expect(await head.innerText()).toContain('sweep: 3 stages');
      const stages = o.page.locator('#runs tbody tr.stage');
      expect(await stages.count()).toBe(3);
      expect(await stages.first().isHidden()).toBe(true);
      await head.click();
      expect(await stages.nth(2).isVisible()).toBe(true);
      // The sweep's three rates make a load curve of their own.
      const groups = await o.page.locator('#curve-group option').allInnerTexts();
      expect(groups.some((g) => g.includes('(3 loads)'))).toBe(true);
      expect(o.problems.filter((p) => p.startsWith('error') || p.startsWith('pageerror'))).toEqual([]);
      await o.page.close();
    } finally {
      await d.close();
    }
  }, 90_000);

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

    await checkQuality(page);

    // A run in progress: its frames arrive over server-sent events.
    await page.locator('#live-list button').first().click();
    await page.waitForFunction(() => /2\/10/.test((globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText));
    expect(await page.locator('#live-figures').innerText()).not.toContain('accuracy');
    // A frame with judged answer checks: the accuracy so far, over the answered ones (5 of 6 = 83.3%).
    appendFileSync(join(fx.results, fx.liveId, 'progress.jsonl'), `${JSON.stringify(frame(7, 10, { judged: 7, answered: 6, passed: 5 }))}\n`);
    await page.waitForFunction(() => /7\/10 \(70%\)/.test((globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText));
    expect(await page.locator('#live-figures').innerText()).toMatch(/accuracy \(so far\)\s+83\.3% \(5\/6 answered\)/);
    await loaded('#live-chart');

    mkdirSync('artifacts', { recursive: true });
    await page.screenshot({ path: join('artifacts', 'dashboard.png'), fullPage: true });
    expect(errors).toEqual([]);
    const origin = new URL(dash.url).origin;
    expect(requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});

interface Rec {
  phase: string;
  status: string;
  retried?: boolean;
  task?: string;
  quality?: { kind: string; pass: boolean; outcome: string };
}

/** `70.0% [` for k of n, as the figures print it. */
const share = (k: number, n: number) => `${((k / n) * 100).toFixed(1)}%`;

/** The run list's accuracy column, the run detail's quality tables, and a run without checks. */
async function checkQuality(page: Awaited<ReturnType<Browser['context']['newPage']>>): Promise<void> {
  const id = fx.runIds.find((r) => r.endsWith(`-${EVAL_RUN}`))!;
  const recs = readFileSync(join(fx.results, id, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Rec);
  const answered = recs.filter((r) => r.phase === 'measure' && r.quality && r.retried !== true && r.status === 'ok');
  const passed = answered.filter((r) => r.quality!.pass).length;
  expect(answered.length).toBeGreaterThan(30);
  expect(passed).toBeLessThan(answered.length);

  // The list: accuracy with its interval on the eval run, a dash on runs without checks.
  const row = page.locator(`#runs tbody tr[data-run="${id}"]`);
  expect(await row.innerText()).toMatch(new RegExp(`${share(passed, answered.length).replace('.', '\\.')} \\[\\d+\\.\\d–\\d+\\.\\d%\\]`));
  // A run made without checks, named exactly (a filter on text could pick a row made from the eval run).
  const plain = page.locator('#runs tbody tr[data-run$="-fast"]');
  expect(await plain.locator('td').nth(9).innerText(), await plain.innerText()).toBe('—');

  // The detail of a run without checks says so.
  const plainId = await plain.getAttribute('data-run');
  await plain.click();
  await page.waitForSelector(`body[data-detail="${plainId}"]`);
  expect(await page.locator('#quality-none').isVisible()).toBe(true);
  expect(await page.locator('#quality').isHidden()).toBe(true);

  // The eval run's detail: every figure its checks allow, none it cannot have, per task, successes.
  await row.click();
  await page.waitForSelector(`body[data-detail="${id}"]`);
  expect(await page.locator('#quality').isVisible()).toBe(true);
  expect(await page.locator('#quality-none').isHidden()).toBe(true);
  const figures = new Map(
    (await page.locator('#quality-figures tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')))).map((c) => [c[0]!, c[1]!]),
  );
  expect(figures.get('Accuracy (all answered)')).toMatch(new RegExp(`^${share(passed, answered.length).replace('.', '\\.')} \\[.*\\] \\(${passed}/${answered.length}\\)$`));
  const kinds = new Set(answered.map((r) => r.quality!.kind));
  expect(figures.has('Hallucination (closed-book)')).toBe(kinds.has('closed_book'));
  expect(figures.has('Code pass rate')).toBe(kinds.has('code'));
  expect(figures.has('Citation correctness')).toBe(kinds.has('citation'));
  expect(figures.has('Refusal (should refuse)')).toBe(kinds.has('refusal'));
  expect(figures.has('Format compliance (json, length)')).toBe(kinds.has('json') || kinds.has('max_length'));
  if (kinds.has('code')) {
    const code = answered.filter((r) => r.quality!.kind === 'code');
    expect(figures.get('Code pass rate')).toMatch(new RegExp(`\\(${code.filter((r) => r.quality!.pass).length}/${code.length}\\)$`));
  }
  const tasks = new Set(answered.map((r) => r.task));
  expect(await page.locator('#quality-tasks tbody tr').count()).toBe(tasks.size);
  const success = await page.locator('#quality-success').innerText();
  expect(success).toContain(`Successful tasks (ok, correct; no per-request SLOs were given): ${passed} of `);
  expect(success).toMatch(/successful tasks\/s; cost per successful task \$\d/);
}
