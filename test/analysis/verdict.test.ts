import { describe, expect, it } from 'vitest';
import { assessOutcome } from '../../src/analysis/request-outcome.js';
import { judgeRun } from '../../src/analysis/verdict.js';
import type { RunValidity } from '../../src/analysis/run-validity.js';
import { computeMetrics } from '../../src/metrics/index.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { parseFraction } from '../../src/config/units.js';

function rec(id: number, over: Partial<RequestRecord> = {}): RequestRecord {
  return { ...emptyRecord(id, id), sent_ms: id, end_ms: id + 10, status: 'ok', token_source: 'usage', output_tokens: 4, ...over };
}
const failed = (id: number, error_class: RequestRecord['error_class'], status: RequestRecord['status'] = 'error') => rec(id, { status, error_class });

describe('request outcome', () => {
  it('no success, over the limit, under it (hand-counted)', () => {
    const none = computeMetrics([failed(0, 'http_4xx'), failed(1, 'http_4xx'), failed(2, 'timeout', 'timeout')]).requests;
    expect(assessOutcome(none, { maxFailureRate: 0.05, interrupted: false }).findings).toEqual([
      { check: 'no_success', reason: 'no request succeeded: 3 of 3 failed (http_4xx 2, timeout 1)' },
    ]);
    // 1 of 10 failed = 10% > 5%
    const some = computeMetrics([...Array.from({ length: 9 }, (_, i) => rec(i)), failed(9, 'http_5xx')]).requests;
    expect(assessOutcome(some, { maxFailureRate: 0.05, interrupted: false }).findings[0]!.reason).toMatch(/^failure rate 10\.00% > --max-failure-rate 5\.00%: 1 of 10 failed \(http_5xx 1\)/);
    // 10% ≤ 10%: valid, with a note
    const ok = assessOutcome(some, { maxFailureRate: 0.1, interrupted: false });
    expect(ok.findings).toEqual([]);
    expect(ok.warnings).toEqual(['1 of 10 requests failed (http_5xx 1); the latencies describe the 9 that succeeded']);
    // Interrupted by a signal: cancellations were the user's, the limit is not applied.
    expect(assessOutcome(some, { maxFailureRate: 0.05, interrupted: true }).findings).toEqual([]);
    expect(assessOutcome(computeMetrics([]).requests, { maxFailureRate: 0.05, interrupted: false }).findings[0]!.check).toBe('no_success');
  });

  it('warmup failures do not count', () => {
    const m = computeMetrics([failed(0, 'connect'), rec(1)].map((r, i) => (i === 0 ? { ...r, phase: 'warmup' as const } : r))).requests;
    expect(assessOutcome(m, { maxFailureRate: 0, interrupted: false })).toEqual({ findings: [], warnings: [] });
  });
});

describe('judgeRun', () => {
  const records = [rec(0), failed(1, 'http_5xx')];
  const base = { records, requests: computeMetrics(records).requests, ignoreEos: false, clientTokenizer: 'estimate' as const, interrupted: false };

  it('puts the outcome before the client findings, with a check id per reason', () => {
    const v = judgeRun({ ...base, health: { dispatchLagMs: Float64Array.from([50, 50]), eventLoopDelayP99Ms: 1, eventLoopUtilization: 0.1, burst: false }, maxFailureRate: 0.05 });
    expect(v.valid).toBe(false);
    expect(v.failed_checks).toEqual(['failure_rate', 'dispatch_lag']);
    expect(v.reasons).toHaveLength(2);
    expect(v.checks).toMatchObject({ client_observed: true, dispatch_late: 2, failure_rate: 0.5, max_failure_rate: 0.05 });
  });

  it('re-analysis keeps the original client findings and recomputes the outcome', () => {
    const prior = {
      valid: false,
      reasons: ['failure rate 50.00% > --max-failure-rate 5.00%', 'client CPU saturated: 97% of a core > 90%'],
      failed_checks: ['failure_rate', 'client_busy'],
      warnings: [],
      checks: { client_observed: true, dispatch_lag_p99_ms: 1, dispatch_late: 0, event_loop_delay_p99_ms: 3, client_event_loop_utilization: 0.97 },
    } as unknown as RunValidity;
    const v = judgeRun({ ...base, health: null, prior, maxFailureRate: 0.6 });
    expect(v.reasons).toEqual(['client CPU saturated: 97% of a core > 90%']);
    expect(v.failed_checks).toEqual(['client_busy']);
    expect(v.checks).toMatchObject({ client_observed: true, client_event_loop_utilization: 0.97, failure_rate: 0.5, max_failure_rate: 0.6 });
    // A verdict written before failed_checks existed held client findings only.
    const old = { valid: false, reasons: ['client fell behind its schedule'], warnings: [], checks: { dispatch_lag_p99_ms: 40 } } as unknown as RunValidity;
    expect(judgeRun({ ...base, health: null, prior: old, maxFailureRate: 0.6 }).failed_checks).toEqual(['dispatch_lag']);
  });

  it('without a client to observe (sim run, bare records) only the records speak', () => {
    const v = judgeRun({ ...base, health: null, maxFailureRate: 0.6 });
    expect(v).toMatchObject({ valid: true, reasons: [], failed_checks: [] });
    expect(v.checks).toMatchObject({ client_observed: false, dispatch_lag_p99_ms: null, dispatch_late: null, client_event_loop_utilization: null });
  });
});

describe('parseFraction', () => {
  it('takes fractions and percentages in [0, 1]', () => {
    expect(parseFraction('0.05')).toBe(0.05);
    expect(parseFraction('5%')).toBe(0.05);
    expect(parseFraction('0')).toBe(0);
    expect(parseFraction(1)).toBe(1);
    for (const bad of ['1.5', '150%', '-1', 'lots', '']) expect(() => parseFraction(bad)).toThrow(/fraction between 0 and 1/);
  });
});
