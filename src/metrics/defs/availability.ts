/**
 * Availability seen from the client: outages are stretches of the run when the server could not
 * be reached or answered only with server errors, found from the records alone (no server
 * metrics needed — a restarted server that loses its counters is still seen).
 *
 * An outage: at least MIN_OUTAGE_FAILURES consecutive requests (in send order, last attempts)
 * that failed with an unavailability class (connection refused or reset, a dropped or stalled stream, a
 * 5xx, or a non-stream page such as a proxy's 502), with no ok request between them. It starts
 * at the first such request's send and ends at the send of the next ok request (or at the end of
 * the measured window when none came). Other failures (429, 4xx, timeouts) neither extend nor
 * end one: a timeout says the server was slow, not gone. A lone failure is a fault, not an outage.
 */
import type { ErrorClass, RequestRecord } from '../../record/record.js';
import { ratio, type RunMetricDef } from '../metric-def.js';

export const UNAVAILABLE_CLASSES: ReadonlySet<ErrorClass> = new Set<ErrorClass>(['connect', 'disconnect', 'stalled', 'http_5xx', 'not_event_stream']);

/** Consecutive unavailability failures that make an outage. */
export const MIN_OUTAGE_FAILURES = 3;

export interface Outage {
  /** sent_ms of its first failed request. */
  from_ms: number;
  /** sent_ms of the next ok request; the window's end when the run ended in it. */
  to_ms: number;
  /** Requests that failed in it, by error class. */
  failed: number;
  by_error_class: Partial<Record<ErrorClass, number>>;
  /** False when the run ended before the server answered again. */
  recovered: boolean;
}

function unavailable(r: RequestRecord): boolean {
  return r.status === 'error' && r.error_class !== null && UNAVAILABLE_CLASSES.has(r.error_class);
}

/** The outages among measure-phase `records` (superseded retry attempts are ignored), in time order. */
export function findOutages(records: readonly RequestRecord[], windowEndMs: number): Outage[] {
  // Without a single unavailability failure there is no streak: skip sorting every record by send.
  if (!records.some((r) => unavailable(r) && !r.retried)) return [];
  const inOrder = records.filter((r) => !r.retried).sort((a, b) => a.sent_ms - b.sent_ms || a.id - b.id);
  const out: Outage[] = [];
  let streak: RequestRecord[] = [];
  const close = (toMs: number, recovered: boolean) => {
    if (streak.length >= MIN_OUTAGE_FAILURES) {
      const byClass: Partial<Record<ErrorClass, number>> = {};
      for (const r of streak) byClass[r.error_class!] = (byClass[r.error_class!] ?? 0) + 1;
      out.push({ from_ms: streak[0]!.sent_ms, to_ms: Math.max(toMs, streak[0]!.sent_ms), failed: streak.length, by_error_class: byClass, recovered });
    }
    streak = [];
  };
  for (const r of inOrder) {
    if (unavailable(r)) streak.push(r);
    else if (r.status === 'ok') close(r.sent_ms, true);
  }
  let end = windowEndMs;
  for (const r of streak) end = Math.max(end, r.end_ms);
  close(end, false);
  return out;
}

/** Σ outage length (ms). */
export function downtimeMs(outages: readonly Outage[]): number {
  let sum = 0;
  for (const o of outages) sum += o.to_ms - o.from_ms;
  return sum;
}

/** Availability = 1 − downtime / measured duration (null for a run of no duration). */
export const availability = {
  kind: 'run',
  id: 'availability',
  label: 'Availability',
  unit: 'ratio',
  formula: '1 − Σ outage time / measured duration (an outage: ≥ 3 consecutive connect/disconnect/5xx failures until the next ok send)',
  value: (t) => {
    const down = ratio(t.downtime_ms / 1000, t.duration_s);
    return down === null ? null : Math.max(0, 1 - down);
  },
} as const satisfies RunMetricDef;
