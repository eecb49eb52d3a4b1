/**
 * Per-request latencies (ms), over ok measure-phase requests. Times are the record's
 * monotonic-clock milliseconds (see DESIGN.md "The record").
 */

import type { RequestMetricDef } from '../metric-def.js';

/** TTFT = first_token_ms − sent_ms; undefined (and failing a TTFT SLO) without a first token. */
export const ttft = {
  kind: 'request',
  id: 'ttft_ms',
  label: 'TTFT',
  unit: 'ms',
  over: 'ok',
  formula: 'first_token_ms − sent_ms',
  sql: 'first_token_ms - sent_ms',
  value: (r) => (r.first_token_ms === null ? null : r.first_token_ms - r.sent_ms),
  sloWhenUndefined: 'fails',
} as const satisfies RequestMetricDef;

/**
 * TTFT from schedule = first_token_ms − scheduled_ms: includes the client's own queueing
 * (concurrency gate, late dispatch), so it is free of coordinated omission in open loop.
 */
export const ttftFromSchedule = {
  kind: 'request',
  id: 'ttft_from_schedule_ms',
  label: 'TTFT (from schedule)',
  unit: 'ms',
  over: 'ok',
  formula: 'first_token_ms − scheduled_ms',
  sql: 'first_token_ms - scheduled_ms',
  value: (r) => (r.first_token_ms === null ? null : r.first_token_ms - r.scheduled_ms),
  sloWhenUndefined: 'fails',
} as const satisfies RequestMetricDef;

/** E2EL = end_ms − sent_ms. */
export const e2el = {
  kind: 'request',
  id: 'e2el_ms',
  label: 'E2EL',
  unit: 'ms',
  over: 'ok',
  formula: 'end_ms − sent_ms',
  sql: 'end_ms - sent_ms',
  value: (r) => r.end_ms - r.sent_ms,
  sloWhenUndefined: 'fails',
} as const satisfies RequestMetricDef;

/** E2EL from schedule = end_ms − scheduled_ms. */
export const e2elFromSchedule = {
  kind: 'request',
  id: 'e2el_from_schedule_ms',
  label: 'E2EL (from schedule)',
  unit: 'ms',
  over: 'ok',
  formula: 'end_ms − scheduled_ms',
  sql: 'end_ms - scheduled_ms',
  value: (r) => r.end_ms - r.scheduled_ms,
  sloWhenUndefined: 'fails',
} as const satisfies RequestMetricDef;

/**
 * Schedule lag = sent_ms − scheduled_ms, over every measure-phase attempt (failed ones
 * were late or on time just the same). Its p99 tells whether the client kept its schedule.
 */
export const scheduleLag = {
  kind: 'request',
  id: 'schedule_lag_ms',
  label: 'Schedule lag',
  unit: 'ms',
  over: 'all',
  formula: 'sent_ms − scheduled_ms',
  sql: 'sent_ms - scheduled_ms',
  value: (r) => r.sent_ms - r.scheduled_ms,
} as const satisfies RequestMetricDef;
