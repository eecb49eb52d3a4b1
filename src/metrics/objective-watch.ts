/**
 * Early stop: while a stage runs, whether an SLO can still be met. Fed each measure-phase
 * record as it completes; `hopeless()` names an SLO that no completion of the stage can meet.
 * It is sound by construction: it assumes every request not yet completed (at most
 * `plannedMeasure − seen`) ends in the SLO's favour, so it never stops a stage that could still
 * pass. Incremental: O(1) per record.
 *
 * Which SLOs it watches (the others are only judged at the end):
 * - a percentile of a per-request metric with `<` / `<=` and no window: with b violating values
 *   of k seen and R still to come, the best case adds R good values (n = k + R). The final pNN
 *   (numpy linear) is ≥ x[⌊h⌋], h = (n − 1)·p/100, which is a violating value once the good
 *   values number ≤ ⌊h⌋: k − b + R ≤ ⌊(k + R − 1)·p/100⌋ (h computed with the same float
 *   operations as stats.ts, so the two never disagree on ⌊h⌋). Fewer good values (failed requests
 *   add none) keep that true, so the bound holds whatever the rest does.
 * - `max(...) <` / `<=`: one violating value is enough. `mean(...) <` / `<=`: Σ / (k + R) with the
 *   rest at 0 ms already violates.
 * - status rates (`error_rate`, `timeout_rate`, `failure_rate`, `cancel_rate`) with `<` / `<=`:
 *   count / plannedMeasure already violates (the count only grows).
 * - `goodput_attained >` / `>=`: (good + R) / plannedMeasure already misses.
 */

import type { GoodputSlo, Objective } from '../config/slo.js';
import type { RequestRecord, RequestStatus } from '../record/record.js';
import { isGood } from './goodput.js';
import { meets } from './objectives.js';
import { METRICS } from './registry.js';

const STATUS_RATES: Readonly<Record<string, (s: RequestStatus) => boolean>> = {
  error_rate: (s) => s === 'error',
  timeout_rate: (s) => s === 'timeout',
  cancel_rate: (s) => s === 'cancelled',
  failure_rate: (s) => s !== 'ok',
};

interface Tracker {
  add(r: RequestRecord): void;
  /** null while the SLO can still be met, given at most `remaining` more measure-phase requests. */
  hopeless(remaining: number, planned: number): string | null;
}

const upper = (o: Objective) => o.op === '<' || o.op === '<=';

function trackerFor(o: Objective, goodput: readonly GoodputSlo[]): Tracker | null {
  if (o.window_ms !== null) return null;
  const def = METRICS.get(o.metric);
  if (!def) return null;
  const violates = (v: number) => !meets(v, o.op, o.threshold);

  if (def.kind === 'request' && o.statistic !== null && upper(o)) {
    const s = o.statistic;
    let k = 0;
    let bad = 0;
    let sum = 0;
    const take = (r: RequestRecord): number | null => (def.over === 'ok' && r.status !== 'ok' ? null : def.value(r));
    if (s.kind === 'percentile') {
      return {
        add(r) {
          const v = take(r);
          if (v === null) return;
          k++;
          if (violates(v)) bad++;
        },
        hopeless(remaining) {
          const n = k + remaining;
          if (bad === 0 || n === 0) return null;
          return k - bad + remaining <= Math.floor((n - 1) * (s.p / 100)) ? `${bad} of ${k} values already break it with at most ${remaining} to come` : null;
        },
      };
    }
    if (s.kind === 'max') {
      return {
        add(r) {
          const v = take(r);
          if (v !== null && violates(v)) bad++;
        },
        hopeless: () => (bad > 0 ? `${bad} values already above the threshold` : null),
      };
    }
    return {
      add(r) {
        const v = take(r);
        if (v === null) return;
        k++;
        sum += v;
      },
      hopeless(remaining) {
        return k > 0 && violates(sum / (k + remaining)) ? `the mean cannot come back under the threshold with ${remaining} requests to come` : null;
      },
    };
  }

  const counts = STATUS_RATES[o.metric];
  if (def.kind === 'run' && counts && upper(o)) {
    let c = 0;
    return {
      add(r) {
        if (counts(r.status)) c++;
      },
      hopeless: (_remaining, planned) => (c > 0 && planned > 0 && violates(c / planned) ? `${c} of at most ${planned} requests already count against it` : null),
    };
  }

  if (o.metric === 'goodput_attained' && !upper(o) && goodput.length > 0) {
    let good = 0;
    return {
      add(r) {
        if (isGood(r, goodput)) good++;
      },
      hopeless: (remaining, planned) =>
        planned > 0 && violates((good + remaining) / planned) ? `only ${good} good requests with ${remaining} to come of ${planned}` : null,
    };
  }
  return null;
}

export class ObjectiveWatch {
  private readonly trackers: Array<[Objective, Tracker]>;
  private seen = 0;

  /**
   * @param plannedMeasure an upper bound on the stage's measure-phase requests (its request
   *   count, less a warm-up given as a count)
   */
  constructor(
    objectives: readonly Objective[],
    private readonly plannedMeasure: number,
    goodput: readonly GoodputSlo[] = [],
  ) {
    this.trackers = [];
    for (const o of objectives) {
      const t = trackerFor(o, goodput);
      if (t) this.trackers.push([o, t]);
    }
  }

  /** Whether any SLO is watched at all (else early stop cannot happen). */
  get watching(): boolean {
    return this.trackers.length > 0;
  }

  /** Feeds one completed record (records of other phases, and superseded attempts, are ignored). */
  add(r: RequestRecord): void {
    // An attempt followed by a retry (--retries) does not count: the request's last attempt will.
    if (r.phase !== 'measure' || r.retried) return;
    this.seen++;
    for (const [, t] of this.trackers) t.add(r);
  }

  /** `"<slo>": why` for the first SLO that can no longer be met; null while all still can. */
  hopeless(): string | null {
    const remaining = Math.max(0, this.plannedMeasure - this.seen);
    for (const [o, t] of this.trackers) {
      const why = t.hopeless(remaining, Math.max(this.plannedMeasure, this.seen));
      if (why !== null) return `"${o.text}" can no longer be met: ${why}`;
    }
    return null;
  }
}
