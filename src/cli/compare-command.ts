/**
 * `infermeter compare A B [C …]`: the flags → the compare session (src/session/compare-runs.ts)
 * → the comparison as text or JSON, the outputs asked for, and the exit code.
 */
import { CompareFlagsSchema, parseCommandOptions } from '../config/command-options.js';
import { checkWritable } from '../export/junit.js';
import { gateLines } from '../analysis/gates.js';
import { renderCompareText } from '../report/compare-report.js';
import { compareRuns } from '../session/compare-runs.js';
import { writeCompareOutputs } from '../session/compare-outputs.js';
import type { CliIo } from './io.js';

export async function compareCommand(paths: string[], opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const flags = parseCommandOptions(CompareFlagsSchema, opts);
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
