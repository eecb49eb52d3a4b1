/**
 * `infermeter report RUN_DIR [--out FILE]`, and the report written at the end of a run:
 * one self-contained HTML file (docs/report.md).
 */
import { join, resolve } from 'node:path';
import { REPORT_FILE } from '../report/render-report.js';
import type { CliIo } from './io.js';
import { infermeterVersion } from '../session/version.js';
import { reportHtml, writeHtml } from '../session/write-report.js';

export async function reportCommand(dir: string, opts: { out?: string }, io: CliIo): Promise<number> {
  const t0 = performance.now();
  const html = await reportHtml(dir, { generator: `infermeter ${infermeterVersion()}`, warn: (line) => io.stderr.write(`${line}\n`) });
  const out = opts.out ?? join(dir, REPORT_FILE);
  writeHtml(out, html, opts.out ? '--out' : 'report');
  io.stdout.write(`Report: ${resolve(out)} (${(html.length / 1024).toFixed(0)} KiB, ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  return 0;
}
