/**
 * Records → RunTotals: the sums and counts every run-level figure (throughputs, rates,
 * goodput) is derived from. One definition, used for a whole run (compute.ts) and for one
 * SLO window (objectives.ts).
 */

import type { RequestRecord, RequestStatus } from '../record/record.js';
import type { GoodputSlo } from '../config/slo.js';
import { downtimeMs, findOutages } from './defs/availability.js';
import { isDegraded, isOom } from './defs/stability.js';
import { isGood } from './goodput.js';
import type { RunTotals } from './metric-def.js';
import { peak, secondBuckets } from './peaks.js';
import type { TokenSpread } from './chunk-gaps.js';

export const DEFAULT_LATE_THRESHOLD_MS = 10;

/** A span of run time in ms: the measured window (first sent_ms → last end_ms of the measured records) or one SLO window. */
export interface TimeSpan {
  start_ms: number;
  end_ms: number;
}

/**
 * Totals of measure-phase `measure` records over `window` (its length is the duration), with
 * goodput counted against `slos` (good is null without SLOs). A request is late when
 * sent_ms − scheduled_ms > lateMs. `tokens`: the window's per-second output tokens already
 * spread (peaks.ts tokenSeconds), else they are spread here. `overTime` false: the peaks and the
 * downtime are left 0, neither pass over the window made (for a caller that reads only the sums
 * and counts: compare's point figures).
 */
export function runTotals(
  measure: readonly RequestRecord[],
  window: TimeSpan | null,
  slos: readonly GoodputSlo[],
  lateMs: number = DEFAULT_LATE_THRESHOLD_MS,
  tokens?: TokenSpread,
  overTime = true,
): RunTotals {
  const byStatus: Record<RequestStatus, number> = { ok: 0, error: 0, timeout: 0, cancelled: 0 };
  let ok = 0;
  let late = 0;
  let oom = 0;
  let degraded = 0;
  let retried = 0;
  let total = 0;
  let inputTotal = 0;
  let outputTotal = 0;
  let good = 0;
  let goodTokens = 0;
  for (const r of measure) {
    // An attempt superseded by a retry (--retries) is counted, not measured: a request's figures are its last attempt's.
    if (r.retried) {
      retried++;
      continue;
    }
    total++;
    byStatus[r.status]++;
    if (r.sent_ms - r.scheduled_ms > lateMs) late++;
    if (isOom(r)) oom++;
    if (isDegraded(r)) degraded++;
    if (r.status !== 'ok') continue;
    ok++;
    inputTotal += r.prompt_tokens ?? r.client_prompt_tokens ?? 0;
    outputTotal += r.output_tokens;
    if (slos.length > 0 && isGood(r, slos)) {
      good++;
      goodTokens += r.output_tokens;
    }
  }
  const buckets = window === null || !overTime ? null : secondBuckets(measure, window.start_ms, window.end_ms, tokens);
  const downtime = window === null || !overTime ? 0 : downtimeMs(findOutages(measure, window.end_ms));
  const hasGoodput = slos.length > 0;
  return {
    duration_s: window === null ? 0 : (window.end_ms - window.start_ms) / 1000,
    total,
    ok,
    by_status: byStatus,
    late,
    oom,
    degraded,
    retried,
    downtime_ms: downtime,
    input_tokens: inputTotal,
    output_tokens: outputTotal,
    good: hasGoodput ? good : null,
    good_output_tokens: hasGoodput ? goodTokens : null,
    peak_output_tokens_per_s: buckets === null ? 0 : peak(buckets.output_tokens),
    peak_concurrency: buckets === null ? 0 : peak(buckets.max_concurrency),
  };
}
