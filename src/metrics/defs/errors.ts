/**
 * Failure rates, over every measure-phase attempt (null when there are none). Counts by
 * status and by error class are in RunMetrics.requests.
 */

import { ratio, type RunMetricDef } from '../metric-def.js';

/** Failure rate = non-ok attempts / all attempts. */
export const failureRate = {
  kind: 'run',
  id: 'failure_rate',
  label: 'Failure rate',
  unit: 'ratio',
  formula: '(error + timeout + cancelled) / total',
  value: (t) => ratio(t.total - t.ok, t.total),
} as const satisfies RunMetricDef;

/** Error rate = attempts with status 'error' / all attempts. */
export const errorRate = {
  kind: 'run',
  id: 'error_rate',
  label: 'Error rate',
  unit: 'ratio',
  formula: "status 'error' / total",
  value: (t) => ratio(t.by_status.error, t.total),
} as const satisfies RunMetricDef;

/** Timeout rate = attempts with status 'timeout' / all attempts. */
export const timeoutRate = {
  kind: 'run',
  id: 'timeout_rate',
  label: 'Timeout rate',
  unit: 'ratio',
  formula: "status 'timeout' / total",
  value: (t) => ratio(t.by_status.timeout, t.total),
} as const satisfies RunMetricDef;

/** Cancel rate = attempts with status 'cancelled' (aborted at the end of the run) / all. */
export const cancelRate = {
  kind: 'run',
  id: 'cancel_rate',
  label: 'Cancel rate',
  unit: 'ratio',
  formula: "status 'cancelled' / total",
  value: (t) => ratio(t.by_status.cancelled, t.total),
} as const satisfies RunMetricDef;

/** Late requests = attempts sent more than the late threshold after their schedule. */
export const lateRequests = {
  kind: 'run',
  id: 'late_requests',
  label: 'Late requests',
  unit: 'requests',
  formula: 'count of sent_ms − scheduled_ms > late threshold (default 10 ms)',
  value: (t) => t.late,
} as const satisfies RunMetricDef;
