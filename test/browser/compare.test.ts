/**
 * `compare --html` in a real browser at a phone's and a desktop's width: overlaid CDFs of the
 * two runs with the baseline's SLO rules, the delta table with intervals, the load-shape check,
 * the two environment fingerprints side by side; offline, no console error, nothing past the
 * viewport. Screenshots under artifacts/screenshots/.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { layoutOf, openAt, screenshot, WIDTHS } from './page-check.js';

let browser: Browser;
let file: string;
let dirs: string[];

beforeAll(async () => {
  const root = tempDir('compare-html');
  for (const [name, rate] of [['a', '10'], ['b', '30']] as const) {
    const r = await runCli(['sim', 'run', '--request-rate', rate, '--num-prompts', '150', '--seed', '7', '--result-dir', root, '--name', name, '--no-report', '--goodput', 'ttft:250']);
    if (r.code !== 0) throw new Error(r.stderr);
  }
  dirs = ['a', 'b'].map((n) => join(root, readdirSync(root).find((d) => d.endsWith(`-${n}`))!));
  // B as if measured on another engine version, declared under test (--vary).
  const result = JSON.parse(readFileSync(join(dirs[1]!, 'result.json'), 'utf8')) as { environment: { server: { engine_version: string } } };
  result.environment.server.engine_version = '0.11.0';
  writeFileSync(join(dirs[1]!, 'result.json'), JSON.stringify(result));
  file = join(root, 'compare.html');
  const out = await runCli(['compare', dirs[0]!, dirs[1]!, '--html', file, '--resamples', '200', '--vary', 'engine_version']);
  if (out.code !== 0) throw new Error(out.stderr);
  expect(out.stderr).toContain(`compare: HTML report written to ${file}`);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe('compare --html in Chromium', () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: overlaid CDFs with SLO rules, deltas, load shape, fingerprints; offline and clean`, async () => {
      const url = pathToFileURL(file).href;
      const o = await openAt(browser, width, { onlyUrl: url });
      await o.page.goto(url);
      await o.page.waitForSelector('body[data-charts="done"]', { timeout: 30_000 });
      const state = await o.page.evaluate(() => (globalThis as unknown as { infermeterReport: { total: number; rendered: number; failed: number } }).infermeterReport);
      expect(state).toEqual({ total: 4, rendered: 4, failed: 0 });
      const charts = await o.page.$$eval('.chart-box', (els) =>
        els.map((el) => ({ id: el.getAttribute('data-chart'), lines: el.querySelectorAll('g.mark-line path').length, slo: el.querySelectorAll('g.slo_rule_marks line, g.slo_rule_marks path').length })),
      );
      expect(charts.map((c) => c.id)).toEqual(['cdfs-ttft', 'cdfs-tpot', 'cdfs-itl', 'cdfs-e2el']);
      for (const c of charts) expect(c.lines, `${c.id}: one CDF per run`).toBe(2);
      expect(charts.map((c) => c.slo)).toEqual([1, 0, 0, 0]); // A's goodput bound: TTFT ≤ 250 ms per request
      const text = await o.page.locator('main').innerText();
      expect(text).toContain('What changed');
      expect(text).toMatch(/TTFT p99[^\n]*\[[+−-]?\d/); // a delta with its interval
      expect(text).toContain('Same load?');
      expect(text).toContain('Same environment?');
      expect(text).toMatch(/engine_version\s+\d+\.\d+\.\d+\s+0\.11\.0\s+differs \(under test: --vary\)/);
      expect(text).toContain('DIFFERS');
      const layout = await layoutOf(o.page);
      expect(layout.scrollWidth).toBeLessThanOrEqual(width);
      expect(layout.overflowing).toEqual([]);
      expect(o.problems).toEqual([]);
      expect(o.requests).toEqual([url]);
      await screenshot(o.page, `compare-${width}`, { docs: width === 1440 });
      await screenshot(o.page, `compare-${width}-full`, { fullPage: true });
      await o.page.close();
    }, 90_000);
  }
});
