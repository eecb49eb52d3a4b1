/**
 * The request-outcome half of the run-validity verdict: did the server answer the load at all?
 * A run in which every request failed (a 404, a login page, a closed port, prompts over the
 * context) has no figures to trust, whatever the client did; nor has one where more than
 * `max_failure_rate` of the attempts failed, since its latencies then describe the survivors.
 * Pure: takes the metrics' request counts, returns reasons and notes.
 */
import type { RunMetrics } from '../metrics/run-metrics.js';

export interface OutcomeFinding {
  check: 'no_success' | 'failure_rate';
  reason: string;
}

export interface OutcomeVerdict {
  findings: OutcomeFinding[];
  warnings: string[];
}

/** "http_4xx 20, timeout 3": failures by class, the commonest first (`only`: just these classes). */
export function describeFailureClasses(requests: RunMetrics['requests'], only?: (errorClass: string) => boolean): string {
  return Object.entries(requests.by_error_class)
    .filter(([k, v]) => v! > 0 && (only === undefined || only(k)))
    .sort((a, b) => b[1]! - a[1]! || (a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

const pct = (v: number): string => `${(v * 100).toFixed(2)}%`;

/**
 * `interrupted`: the run was stopped by a signal, so requests cancelled then were the user's
 * doing; the failure-rate limit is not applied (no request succeeding still is).
 */
export function assessOutcome(requests: RunMetrics['requests'], opts: { maxFailureRate: number; interrupted: boolean }): OutcomeVerdict {
  const findings: OutcomeFinding[] = [];
  const warnings: string[] = [];
  const { total, ok, failed } = requests;
  const rate = requests.failure_rate;
  const classes = describeFailureClasses(requests);
  if (total === 0) {
    findings.push({ check: 'no_success', reason: 'no request was measured' });
  } else if (ok === 0) {
    findings.push({ check: 'no_success', reason: `no request succeeded: ${failed} of ${total} failed (${classes})` });
  } else if (rate !== null && rate > opts.maxFailureRate && !opts.interrupted) {
    findings.push({
      check: 'failure_rate',
      reason: `failure rate ${pct(rate)} > --max-failure-rate ${pct(opts.maxFailureRate)}: ${failed} of ${total} failed (${classes}); the latencies describe only the requests that succeeded`,
    });
  } else if (failed > 0) {
    warnings.push(`${failed} of ${total} requests failed (${classes}); the latencies describe the ${ok} that succeeded`);
  }
  return { findings, warnings };
}
