/** The report written at the end of a run or sweep: one self-contained HTML file (docs/report.md). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { renderReport, REPORT_FILE } from '../report/render-report.js';
import type { RunResult } from '../report/result-json.js';
import { infermeterVersion } from './version.js';

export function writeHtml(path: string, html: string, what: string): void {
  try {
    writeFileSync(path, html);
  } catch (err) {
    throw new UserError(`${what} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** Writes DIR/report.html from the run's result and records when the caller holds them (else its files); returns the path. */
export async function writeRunReport(dir: string, records?: readonly RequestRecord[], result?: RunResult): Promise<string> {
  const path = join(dir, REPORT_FILE);
  writeHtml(path, await renderReport(dir, { ...(records ? { records } : {}), ...(result ? { result } : {}), generator: `infermeter ${infermeterVersion()}` }), 'report');
  return path;
}
