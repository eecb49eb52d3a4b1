/**
 * The `compare` session: the inputs read into sides (compare-sides.ts), invalid runs refused
 * unless allowed, runs of differing servers refused unless the difference is declared under test
 * (--vary) or forced (one line, exit 2; docs/compare.md §Environment), each pair judged (analysis/compare/compare.ts), the gates, and what failed.
 * Returns objects, prints nothing: progress and warnings go to the context's log.
 */
import { comparePair, type CompareSide, type PairComparison } from '../analysis/compare/compare.js';
import { compareGates, type Gate } from '../analysis/gates.js';
import type { CompareRunOptions } from '../config/command-options.js';
import { compareExitCode, type ExitCode } from '../errors/exit-codes.js';
import type { SessionContext } from './context.js';
import { readCompareInputs, type CompareInputs } from './compare-sides.js';
import { groupArgs, readGroupInputs } from './compare-groups.js';
import { compareGroups } from '../analysis/compare/group-compare.js';
import { compareEnvironments, parseVary, refusalLine } from '../analysis/environment-diff.js';
import { UserError } from '../errors/user-error.js';

export const COMPARE_SCHEMA = 'infermeter.compare/1';

/** `compare --json`: every pair judged and the gates (docs/compare.md). */
export interface CompareResult {
  schema: typeof COMPARE_SCHEMA;
  pairs: PairComparison[];
  gates: Gate[];
}

export interface CompareOutcome {
  /** The comparison; null when an invalid run was refused (not allowInvalid). */
  result: CompareResult | null;
  /** What the gates file holds: the result's gates, or when refused the validity gates alone. */
  gates: Gate[];
  /** Each invalid run given, with its verdict's first reason (refused, or judged under allowInvalid). */
  invalid: Array<{ label: string; reason: string }>;
  /** `B: TTFT p50` for each figure significantly worse beyond failOnRegression. */
  regressions: string[];
  /** `B: accuracy -4.0 pts` for each pair whose accuracy dropped beyond failOnQualityDrop. */
  qualityDrops: string[];
  /** Why a gate that was asked for had nothing to judge, one sentence each. */
  notes: string[];
  exitCode: ExitCode;
  /** The run directories read, by the path given (compare-sides.ts), so `--html` does not read them again. */
  bundles?: CompareInputs['bundles'];
}

/** One validity gate per run side (vLLM files carry no verdict). */
function validityGates(sides: readonly CompareSide[]): Gate[] {
  return sides
    .filter((s) => s.kind === 'run')
    .map((s): Gate => ({ suite: s.label, name: 'validity', pass: !s.invalid, measured: s.invalid ? 'invalid' : 'valid', threshold: null, message: s.invalid ?? 'the run is valid' }));
}

/**
 * Judges sides already read (the pairs of compare-sides.ts, or sides built in memory): an invalid
 * run measured the client or a broken server, not the service, so it is refused (exit 5) unless
 * `allowInvalid`.
 */
export function judgeSides(inputs: CompareInputs, options: CompareRunOptions, log: (line: string) => void = () => {}): CompareOutcome {
  const invalid = inputs.sides.filter((s) => s.invalid).map((s) => ({ label: s.label, reason: s.invalid! }));
  for (const s of invalid) {
    log(`compare: ${s.label} is an invalid run (${s.reason})${options.allowInvalid ? '; judged anyway (--allow-invalid)' : `; --allow-invalid compares it anyway`}`);
  }
  if (invalid.length > 0 && !options.allowInvalid) {
    return { result: null, gates: validityGates(inputs.sides), invalid, regressions: [], qualityDrops: [], notes: [], exitCode: compareExitCode({ refusedInvalid: true, regressed: false }) };
  }
  // Runs of different servers measured different things: refused before any resampling, unless what differs is declared under test.
  const vary = parseVary(options.vary);
  if (!options.force) {
    for (const [a, b] of inputs.pairs) {
      const env = compareEnvironments(a.environment ?? null, b.environment ?? null, vary);
      if (env.blocking.length > 0) throw new UserError(refusalLine(env, a.label, b.label));
    }
  }
  const g = inputs.groups;
  log(g ? `compare: ${g.a.runs.length} + ${g.b.runs.length} runs, each run's noise from ${options.resamples} bootstrap resamples…` : `compare: ${options.resamples} bootstrap resamples per pair…`);
  const pairs = g ? [compareGroups(g.a, g.b, { ...options, vary })] : inputs.pairs.map(([a, b]) => comparePair(a, b, { ...options, vary }));
  const gates = [...validityGates(inputs.sides), ...compareGates(pairs, { failOnQualityDrop: options.failOnQualityDrop })];
  const regressions = pairs.flatMap((p) => p.figures.filter((f) => f.regression).map((f) => `${p.b}: ${f.figure.label}`));
  const qualityDrops = pairs.filter((p) => p.quality?.regression).map((p) => `${p.b}: accuracy ${((p.quality!.delta ?? 0) * 100).toFixed(1)} pts`);
  const notes: string[] = [];
  if (options.failOnQualityDrop !== null && pairs.some((p) => p.quality === null)) {
    notes.push('--fail-on-quality-drop had no accuracy to judge for a pair whose runs carried no answer checks');
  }
  if (options.failOnRegression !== null && pairs.some((p) => !p.judged)) {
    notes.push('--fail-on-regression had nothing to judge for a pair without verdicts (see the note above)');
  }
  const regressed = regressions.length > 0 || qualityDrops.length > 0;
  return { result: { schema: COMPARE_SCHEMA, pairs, gates }, gates, invalid, regressions, qualityDrops, notes: regressed ? [] : notes, exitCode: compareExitCode({ refusedInvalid: false, regressed }), ...(inputs.bundles ? { bundles: inputs.bundles } : {}) };
}

/**
 * `compare A B [C …]`: each of B, C, … against the baseline A (run directories, sweep directories,
 * vLLM result files); `compare A1 A2 … -- B1 B2 …` or two repeat directories: group against group
 * (compare-groups.ts).
 */
export function compareRuns(paths: readonly string[], options: CompareRunOptions, ctx: Pick<SessionContext, 'log'> = {}): CompareOutcome {
  const log = ctx.log ?? (() => {});
  const groups = groupArgs(paths);
  return judgeSides(groups ? readGroupInputs(groups, log) : readCompareInputs(paths, log), options, log);
}
