/**
 * What `compare` writes besides its answer: the gates as JUnit XML, the Markdown summary (to a
 * file, stdout, and GitHub's job summary when GITHUB_STEP_SUMMARY names one), the HTML page.
 * Returns the lines to tell the user; prints nothing.
 */
import { writeFileSync } from 'node:fs';
import { appendStepSummary, gatesMarkdown } from '../export/ci-summary.js';
import { junitXml, writeJunit } from '../export/junit.js';
import { UserError } from '../errors/user-error.js';
import { renderCompareMarkdown } from '../report/compare-report.js';
import { buildCompareReport, loadCompareRun } from '../report/html/compare-html.js';
import type { CompareOutcome, CompareResult } from './compare-runs.js';
import { infermeterVersion } from './version.js';

export interface CompareFiles {
  junit: string | null;
  /** true: the Markdown is returned for stdout; a path: written there. */
  markdown: true | string | null;
  html: string | null;
}

export interface CompareWritten {
  /** The Markdown summary when it was asked for on stdout (`markdown: true`). */
  markdown: string | null;
  /** What was written where, and warnings, one line each (`compare: …`). */
  lines: string[];
}

/** The pull-request summary: the gates, then the comparison table. */
export function compareMarkdown(result: CompareResult): string {
  return `${gatesMarkdown(result.gates)}\n\n${renderCompareMarkdown(result.pairs)}\n`;
}

function writeText(path: string, text: string, flag: string): void {
  try {
    writeFileSync(path, text);
  } catch (err) {
    throw new UserError(`${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/**
 * Writes the outputs asked for. A refused comparison (no result) still writes its validity gates
 * to the JUnit file, so CI shows which run was invalid.
 */
export async function writeCompareOutputs(outcome: CompareOutcome, paths: readonly string[], files: CompareFiles, env: NodeJS.ProcessEnv = process.env): Promise<CompareWritten> {
  if (files.junit) writeJunit(files.junit, junitXml('infermeter.compare', outcome.gates, { timestamp: new Date().toISOString() }));
  const result = outcome.result;
  if (!result) return { markdown: null, lines: [] };
  const lines: string[] = [];
  const summary = compareMarkdown(result);
  const step = appendStepSummary(summary, env);
  if (step.error) lines.push(`compare: warning: ${step.error}`);
  if (typeof files.markdown === 'string') {
    writeText(files.markdown, summary, '--markdown');
    lines.push(`compare: Markdown table written to ${files.markdown}`);
  }
  if (files.html) {
    const runs = paths.map((p) => loadCompareRun(p, outcome.bundles?.get(p)));
    writeText(files.html, await buildCompareReport(result.pairs, runs, runs[0]!.rules, `infermeter ${infermeterVersion()}`), '--html');
    lines.push(`compare: HTML report written to ${files.html}`);
  }
  return { markdown: files.markdown === true ? summary : null, lines };
}
