/**
 * `infermeter analyze SWEEP_DIR`: every stage's figures recomputed from records.jsonl, judged by
 * the sweep's SLOs (or new ones from --slo), and the curve read again — the sweep as `analyze`
 * treats a run. Nothing is written: the saved sweep.json stays the record of what ran.
 */
import { issueText } from '../config/zod-issue.js';
import { join } from 'node:path';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import type { Objective } from '../config/slo.js';
import { renderSweep } from '../report/sweep-summary.js';
import { analyzeSweepStages } from '../sweep/run-sweep.js';
import { inputUnitOf } from '../record/input-unit.js';
import type { StageLoad, StageLoadJson } from '../sweep/stages.js';
import { toJsonLoad } from '../sweep/stages.js';
import { sweepGatesPass, type StageResult, type SweepResult, type SweepSearch } from '../sweep/sweep-result.js';
import type { CliIo } from './io.js';
import type { RunSpec } from '../session/run-spec.js';
import { SloListSchema } from '../session/spec-parts.js';
import { readSweep } from '../session/saved-sweep.js';
import { checkObjectivesUsable } from '../config/slo-check.js';
import { stageResult } from '../session/sweep-stages.js';

const fromJsonLoad = (l: StageLoadJson): StageLoad => (l.kind === 'rate' ? { kind: 'rate', rate: l.rate === 'inf' ? Infinity : l.rate } : l);

/**
 * A search re-judged from its probes: the highest passing load below every failing one (the
 * search's own assumption that a higher load never does better).
 */
function rejudgeSearch(search: SweepSearch, stages: readonly StageResult[]): SweepSearch {
  const byIndex = new Map(stages.map((s) => [s.index, s]));
  const probes = search.probes.map((p) => ({ ...p, pass: byIndex.get(p.stage)?.slos_pass === true }));
  const lowestFail = Math.min(...probes.filter((p) => !p.pass).map((p) => p.load));
  const passing = probes.filter((p) => p.pass && p.load < lowestFail).map((p) => p.load);
  const bracketed = passing.length > 0 ? Math.max(...passing) : null;
  const bracket: [number | null, number | null] = [bracketed, Number.isFinite(lowestFail) ? lowestFail : null];
  const reason = `re-judged by analyze from the ${probes.length} saved probes (no new load was run)`;
  // A /1 sweep has no confirmations: its answer is the probes' own, as it was written.
  if (search.confirmations === undefined) return { ...search, probes, found: bracketed, bracket, reason };
  // The answer stands where its saved confirmation run holds under these SLOs; a failed one steps down as the search did.
  const confirmations = search.confirmations.map((c) => ({ ...c, pass: byIndex.get(c.stage)?.slos_pass === true }));
  let candidate = bracketed;
  for (const c of confirmations) {
    if (candidate === null || c.load !== candidate) continue;
    if (c.pass) return { ...search, probes, confirmations, bracketed, found: candidate, bracket, reason: `${reason}; ${candidate} held in its saved confirmation run (stage ${c.stage + 1})` };
    const lower = passing.filter((l) => l < candidate!);
    candidate = lower.length > 0 ? Math.max(...lower) : null;
  }
  if (candidate === null) return { ...search, probes, confirmations, bracketed, found: null, bracket, reason: `${reason}; no load held in a saved confirmation run: no load is confirmed` };
  // The re-judged answer was never run again (analyze runs nothing): the highest load below it that was, and held, stands.
  const held = confirmations.filter((c) => c.pass && c.load <= candidate!).map((c) => c.load);
  const found = held.length > 0 ? Math.max(...held) : null;
  const why = `${candidate} has no saved confirmation run (analyze runs no new load)`;
  return { ...search, probes, confirmations, bracketed, found, bracket, reason: `${reason}; ${why}${found === null ? ': no load is confirmed' : `; the highest load that held in a saved confirmation run is ${found}`}` };
}

export function analyzeSweep(dir: string, opts: Record<string, unknown>, slos: { given: Objective[] | null; goodput: RunSpec['goodput'] | null }, io: CliIo): number {
  const saved = readSweep(dir, 'analyze', (line) => io.stderr.write(`${line}\n`));
  const prior = saved.result;
  let objectives = slos.given;
  if (objectives === null) {
    const parsed = SloListSchema.safeParse(prior.slos);
    if (!parsed.success) throw new UserError(`${join(dir, 'sweep.json')}: slos.${issueText(parsed.error.issues[0]!)}`);
    objectives = parsed.data;
  }
  const goodput = slos.goodput ?? prior.stages[0]?.metrics.goodput?.slos ?? [];
  checkObjectivesUsable(objectives, goodput);
  const ignoreEos = (prior.load as { ignore_eos?: unknown }).ignore_eos === true;
  const tokenizer = typeof (prior.workload as { tokenizer?: unknown }).tokenizer === 'string';
  const stages = prior.stages.map((s) => {
    const records = saved.stages.find((x) => x.index === s.index)?.records ?? [];
    const judged = stageResult(s.index, s.role, fromJsonLoad(s.load), records, { goodput, slos: objectives, inputUnit: inputUnitOf(s.metrics) }, { health: null, ignoreEos, tokenizer, stoppedEarly: s.stopped_early, wallMs: s.wall_s * 1000, validity: s.validity });
    // The server's side is not in the records: kept as the sweep saw it; a batch-size sweep's stage keeps its batch size.
    return { ...judged, ...(s.prefix_cache !== undefined ? { prefix_cache: s.prefix_cache } : {}), ...(s.batch_size !== undefined ? { batch_size: s.batch_size } : {}) };
  });
  const search = prior.search ? rejudgeSearch(prior.search, stages) : null;
  const analysis = analyzeSweepStages(stages, prior.sweep.dimension ?? 'load', objectives.length > 0, prior.analysis.params);
  const result: SweepResult = {
    ...prior,
    slos: objectives.map((o) => o.text),
    stages: stages.map((s) => ({ ...s, load: toJsonLoad(s.load) })),
    analysis,
    search,
    // A batch-size sweep passes when a batch size held the SLOs (sweepGatesPass); a load sweep as analyze always judged it (every stage, --auto's probe too).
    pass: analysis.batch ? sweepGatesPass({ search, stages, analysis }, 'list') : prior.sweep.mode === 'search' ? search?.found !== null && search?.found !== undefined : !stages.some((s) => s.slos_pass === false),
  };
  if (opts.json === true) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout.write(`${renderSweep(result, `infermeter analyze: sweep ${prior.sweep.id ?? dir} (${stages.length} stages from records.jsonl)`)}\n`);
  return result.pass || objectives.length === 0 ? EXIT_CODES.OK : EXIT_CODES.SLO_FAILED;
}
