/**
 * The HTML report of a large run (issue 12): generation time and size of report.html for a
 * run of N requests (default 100,000), and how long the page takes to draw every chart in
 * headless Chromium. The run comes from `sim run` in virtual time (1,024-token prompts,
 * 128-token outputs at 50 req/s), so only the report is timed.
 *
 *   npx tsx bench/report.ts [--requests 100000]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { buildRunReport } from '../src/report/html/run-report.js';
import { loadRunBundle } from '../src/report/render-report.js';
import { fmt, machine, median } from './lib.js';

export interface ReportRow {
  requests: number;
  recordsMiB: number;
  readS: number;
  buildS: number;
  htmlKiB: number;
  /** Median time from navigation to every chart drawn, over 3 loads; null without chromium. */
  openMs: number | null;
}

const quiet = () => new Writable({ write: (_c, _e, cb) => cb() });

async function openTimeMs(file: string): Promise<number | null> {
  let exe: string;
  try {
    exe = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'infermeter-bench-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: exe,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1360, height: 900 },
  });
  try {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await ctx.newPage();
      const t0 = performance.now();
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-charts="done"]', { timeout: 60_000 });
      times.push(performance.now() - t0);
      await page.close();
    }
    return median(times);
  } finally {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

export async function runReportBench(opts: { requests: number }): Promise<ReportRow> {
  const root = mkdtempSync(join(tmpdir(), 'infermeter-bench-report-'));
  try {
    const code = await main(
      ['sim', 'run', '--num-prompts', String(opts.requests), '--request-rate', '50', '--result-dir', root, '--name', 'bench', '--no-report', '--goodput', 'ttft:500', 'tpot:50', '--progress', 'none'],
      { stdout: quiet(), stderr: quiet(), env: {} },
    );
    if (code !== 0) throw new Error(`sim run exited ${code}`);
    const dir = join(root, readdirSync(root).filter((d) => !d.startsWith('.'))[0]!);
    const t0 = performance.now();
    const bundle = loadRunBundle(dir);
    const t1 = performance.now();
    const html = await buildRunReport(bundle, 'infermeter bench');
    const t2 = performance.now();
    const file = join(dir, 'report.html');
    writeFileSync(file, html);
    return {
      requests: opts.requests,
      recordsMiB: statSync(join(dir, 'records.jsonl')).size / 2 ** 20,
      readS: (t1 - t0) / 1000,
      buildS: (t2 - t1) / 1000,
      htmlKiB: Buffer.byteLength(html) / 1024,
      openMs: await openTimeMs(file),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function printReport(r: ReportRow): void {
  console.log(`\n== report: report.html of a sim run of ${fmt(r.requests)} requests (1,024 in / 128 out tokens), records.jsonl ${fmt(r.recordsMiB)} MiB`);
  console.log(
    `read records ${fmt(r.readS, 2)} s   build report ${fmt(r.buildS, 2)} s   report.html ${fmt(r.htmlKiB)} KiB   ` +
      `open in Chromium until every chart is drawn ${r.openMs === null ? 'n/a (no chromium on PATH)' : `${fmt(r.openMs)} ms (median of 3)`}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '100000' } } });
  console.log(`machine: ${machine()}`);
  printReport(await runReportBench({ requests: Number(values.requests) }));
}
