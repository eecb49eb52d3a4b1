/**
 * `infermeter report RUN_DIR [--out FILE]`, and the report written at the end of a run:
 * one self-contained HTML file (docs/report.md).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { renderReport, REPORT_FILE } from '../report/render-report.js';
import { infermeterVersion, type CliIo } from './io.js';

function writeHtml(path: string, html: string, what: string): void {
  try {
    writeFileSync(path, html);
  } catch (err) {
    throw new UserError(`${what} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Writes DIR/report.html from the run's files (and its records, when the caller has them); returns the path. */
export async function writeRunReport(dir: string, records?: readonly RequestRecord[]): Promise<string> {
  const path = join(dir, REPORT_FILE);
  writeHtml(path, await renderReport(dir, { ...(records ? { records } : {}), generator: `infermeter ${infermeterVersion()}` }), 'report');
  return path;
}

export async function reportCommand(dir: string, opts: { out?: string }, io: CliIo): Promise<number> {
  const t0 = performance.now();
  const html = await renderReport(dir, { generator: `infermeter ${infermeterVersion()}` });
  const out = opts.out ?? join(dir, REPORT_FILE);
  writeHtml(out, html, opts.out ? '--out' : 'report');
  io.stdout.write(`Report: ${resolve(out)} (${(html.length / 1024).toFixed(0)} KiB, ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  return 0;
}
