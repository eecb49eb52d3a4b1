/**
 * `infermeter compare A B [C …]`: the flags → the compare session (src/session/compare-runs.ts)
 * → the comparison as text or JSON, the outputs asked for, and the exit code.
 */
import { CompareFlagsSchema, parseCommandOptions, type CompareFlags } from '../config/command-options.js';
import { existsSync } from 'node:fs';
import { UserError } from '../errors/user-error.js';
import { GROUP_MARK } from '../analysis/compare/group-mark.js';
import { isRepeatDir } from '../session/compare-groups.js';
import { compareExitCode } from '../errors/exit-codes.js';
import { checkWritable } from '../export/junit.js';
import { gateLines } from '../analysis/gates.js';
import { renderCompareText } from '../report/compare-report.js';
import { compareRuns } from '../session/compare-runs.js';
import { writeCompareOutputs } from '../session/compare-outputs.js';
import type { CliIo } from './io.js';

/** `compare RUN --against-history`: the run against its spec's noise bands in the history. */
async function againstHistoryCommand(paths: string[], flags: CompareFlags, io: CliIo): Promise<number> {
  if (paths.length !== 1) throw new UserError(`compare --against-history: give one run directory (got ${paths.length}); its spec's earlier runs come from --results-dir`);
  if (flags.junit || flags.markdown || flags.html) throw new UserError('compare --against-history: --junit, --markdown and --html are not written for a history comparison');
  // Loaded here: DuckDB is for the history only, not for every compare.
  const { compareAgainstHistory } = await import('../history/history-band.js');
  const { bandLine } = await import('./history-command.js');
  const h = await compareAgainstHistory(flags.resultsDir, paths[0]!, { confidence: flags.confidence, failOnRegression: flags.failOnRegression, allowInvalid: flags.allowInvalid });
  if (flags.json) io.stdout.write(`${JSON.stringify(h, null, 2)}\n`);
  else {
    io.stdout.write(`== compare ${h.run} against the history: ${h.runs} earlier runs of spec ${h.spec_hash} ==\n`);
    for (const f of h.figures) io.stdout.write(`${bandLine(f, f.label)}${f.regression ? ' — REGRESSION' : ''}\n`);
    io.stdout.write(`\n${(h.confidence * 100).toFixed(0)}% family-wise over ${h.figures.length} figures (Bonferroni: each band ${(h.per_figure_level * 100).toFixed(2)}%); docs/history.md §Noise band.\n`);
  }
  const regressed = h.figures.filter((f) => f.regression);
  if (regressed.length > 0 && flags.failOnRegression !== null) io.stderr.write(`compare: outside the noise band on the worse side beyond --fail-on-regression: ${regressed.map((f) => f.label).join('; ')}\n`);
  return compareExitCode({ refusedInvalid: false, regressed: flags.failOnRegression !== null && regressed.length > 0 });
}

export async function compareCommand(paths: string[], opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const flags = parseCommandOptions(CompareFlagsSchema, opts);
  if (flags.againstHistory) return againstHistoryCommand(paths, flags, io);
  if (flags.html && paths.some((p) => p === GROUP_MARK || (existsSync(p) && isRepeatDir(p)))) throw new UserError('--html: not drawn for a grouped compare; the text, --json and --markdown are');
  if (flags.junit) checkWritable(flags.junit, '--junit');
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const outcome = compareRuns(paths, flags, { log: err });
  const { result } = outcome;
  if (result) {
    if (flags.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else io.stdout.write(`${renderCompareText(result.pairs)}\n\nGates (failed first):\n${gateLines(result.gates).map((l) => `  ${l}`).join('\n')}\n`);
  }
  const written = await writeCompareOutputs(outcome, paths, flags, io.env);
  if (written.markdown !== null) io.stdout.write(`\n${written.markdown}`);
  written.lines.forEach(err);
  if (outcome.regressions.length > 0) err(`compare: significant regression beyond --fail-on-regression: ${outcome.regressions.join('; ')}`);
  if (outcome.qualityDrops.length > 0) err(`compare: significant accuracy drop beyond --fail-on-quality-drop: ${outcome.qualityDrops.join('; ')}`);
  for (const note of outcome.notes) err(`compare: note: ${note}`);
  return outcome.exitCode;
}
