/** The report written at the end of a run or sweep, and by `infermeter report`: one self-contained HTML file (docs/report.md). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { renderReport, REPORT_FILE, type ReportOptions } from '../report/render-report.js';
import type { RunResult } from '../report/result-json.js';
import { sweepContextFor } from './sweep-context.js';
import { infermeterVersion } from './version.js';

export function writeHtml(path: string, html: string, what: string): void {
  try {
    writeFileSync(path, html);
  } catch (err) {
    throw new UserError(`${what} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** The report of a run or sweep directory; a run's first screen also draws the sweep of its setup when the history holds one. */
export async function reportHtml(dir: string, opts: ReportOptions = {}): Promise<string> {
  const sweepContext = opts.sweepContext !== undefined ? opts.sweepContext : await sweepContextFor(dir, opts.result, opts.warn);
  return renderReport(dir, { ...opts, sweepContext });
}

/** Writes DIR/report.html from the run's result and records when the caller holds them (else its files); returns the path. */
export async function writeRunReport(dir: string, records?: readonly RequestRecord[], result?: RunResult): Promise<string> {
  const path = join(dir, REPORT_FILE);
  writeHtml(path, await reportHtml(dir, { ...(records ? { records } : {}), ...(result ? { result } : {}), generator: `infermeter ${infermeterVersion()}` }), 'report');
  return path;
}
