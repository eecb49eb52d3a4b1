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
import { analyzeStages } from '../sweep/run-sweep.js';
import type { StageLoad, StageLoadJson } from '../sweep/stages.js';
import { toJsonLoad } from '../sweep/stages.js';
import type { StageResult, SweepResult, SweepSearch } from '../sweep/sweep-result.js';
import type { CliIo } from './io.js';
import type { RunSpec } from '../session/run-spec.js';
import { SloListSchema } from '../session/run-spec.js';
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
  const found = passing.length > 0 ? Math.max(...passing) : null;
  return {
    ...search,
    probes,
    found,
    bracket: [found, Number.isFinite(lowestFail) ? lowestFail : null],
    reason: `re-judged by analyze from the ${probes.length} saved probes (no new load was run)`,
  };
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
    return stageResult(s.index, s.role, fromJsonLoad(s.load), records, { goodput, slos: objectives }, { health: null, ignoreEos, tokenizer, stoppedEarly: s.stopped_early, wallMs: s.wall_s * 1000, validity: s.validity });
  });
  const search = prior.search ? rejudgeSearch(prior.search, stages) : null;
  const anyFailed = stages.some((s) => s.slos_pass === false);
  const result: SweepResult = {
    ...prior,
    slos: objectives.map((o) => o.text),
    stages: stages.map((s) => ({ ...s, load: toJsonLoad(s.load) })),
    analysis: analyzeStages(stages, prior.analysis.params),
    search,
    pass: prior.sweep.mode === 'search' ? search?.found !== null && search?.found !== undefined : !anyFailed,
  };
  if (opts.json === true) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout.write(`${renderSweep(result, `infermeter analyze: sweep ${prior.sweep.id ?? dir} (${stages.length} stages from records.jsonl)`)}\n`);
  return result.pass || objectives.length === 0 ? EXIT_CODES.OK : EXIT_CODES.SLO_FAILED;
}
