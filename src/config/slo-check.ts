/** Checks across the SLO flags that no single schema sees. */
import type { GoodputSlo, Objective } from './slo.js';
import { UserError } from '../errors/user-error.js';

/**
 * A goodput objective (`goodput`, `goodput_attained`, …) counts requests that meet the
 * per-request SLOs, so it needs some.
 * @throws UserError naming the SLO
 */
export function checkObjectivesUsable(objectives: readonly Objective[], goodput: readonly GoodputSlo[]): void {
  const o = objectives.find((x) => x.metric.startsWith('goodput'));
  if (o && goodput.length === 0) {
    throw new UserError(`--slo "${o.text}": ${o.metric} counts requests meeting the per-request SLOs; give them with --goodput, e.g. --goodput ttft:500 tpot:50`);
  }
}
