/**
 * SLOs (`--slo`, the syntax of src/config/slo.ts) → the pass/fail judge plan's probes use:
 * each probe's records are evaluated by the one SLO evaluator (src/metrics/objectives.ts).
 */
import { parseGoodputSlo, parseObjective, type GoodputSlo, type Objective } from '../../config/slo.js';
import { UnitError } from '../../config/units.js';
import { UserError } from '../../errors/user-error.js';
import { evaluateObjectives, OBJECTIVE_METRICS, type ObjectiveResult } from '../../metrics/index.js';
import type { Judge } from './sim-capacity.js';

function valueText(r: ObjectiveResult): string {
  if (r.value === null) return 'no value';
  if (r.unit === 'ms') return r.value >= 1000 ? `${(r.value / 1000).toFixed(2)} s` : `${r.value.toFixed(1)} ms`;
  if (r.unit === 'ratio') return `${(r.value * 100).toFixed(2)}%`;
  return `${r.value.toFixed(2)} ${r.unit}`;
}

export function makeSloJudge(sloTexts: readonly string[], goodputTexts: readonly string[]): { judge: Judge; texts: string[] } {
  const parse = <T>(flag: string, text: string, f: (t: string) => T): T => {
    try {
      return f(text);
    } catch (err) {
      throw new UserError(`${flag} "${text}": ${err instanceof UnitError || err instanceof Error ? err.message : String(err)}`);
    }
  };
  const objectives: Objective[] = sloTexts.map((t) => parse('--slo', t, (x) => parseObjective(x, OBJECTIVE_METRICS)));
  const goodput: GoodputSlo[] = goodputTexts.map((t) => parse('--goodput', t, parseGoodputSlo));
  if (objectives.some((o) => o.metric.startsWith('goodput')) && goodput.length === 0) {
    throw new UserError('--slo on goodput counts requests meeting per-request SLOs: give them with --goodput, e.g. --goodput ttft:500 tpot:50');
  }
  const judge: Judge = (records) => {
    const results = evaluateObjectives(records, objectives, { goodput });
    const failing = results.filter((r) => !r.pass).map((r) => `${r.slo}: ${valueText(r)}`);
    return { pass: failing.length === 0, failing };
  };
  return { judge, texts: objectives.map((o) => o.text) };
}
