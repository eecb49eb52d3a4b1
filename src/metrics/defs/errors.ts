/**
 * Failure rates, over every measure-phase attempt (null when there are none). Counts by
 * status and by error class are in RunMetrics.requests.
 */

import type { RequestStatus } from '../../record/record.js';
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

/** The share of all attempts that ended with one status. */
function statusRate(status: Exclude<RequestStatus, 'ok'>, id: string, label: string): RunMetricDef {
  return { kind: 'run', id, label, unit: 'ratio', formula: `status '${status}' / total`, value: (t) => ratio(t.by_status[status], t.total) };
}

/** Error rate = attempts with status 'error' / all attempts. */
export const errorRate = statusRate('error', 'error_rate', 'Error rate');

/** Timeout rate = attempts with status 'timeout' / all attempts. */
export const timeoutRate = statusRate('timeout', 'timeout_rate', 'Timeout rate');

/** Cancel rate = attempts with status 'cancelled' (aborted at the end of the run) / all. */
export const cancelRate = statusRate('cancelled', 'cancel_rate', 'Cancel rate');

/** Late requests = attempts sent more than the late threshold after their schedule. */
export const lateRequests = {
  kind: 'run',
  id: 'late_requests',
  label: 'Late requests',
  unit: 'requests',
  formula: 'count of sent_ms − scheduled_ms > late threshold (default 10 ms)',
  value: (t) => t.late,
} as const satisfies RunMetricDef;
