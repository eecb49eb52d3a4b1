import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../src/analysis/verdict.js';
import { computeMetrics } from '../../src/metrics/index.js';
import { renderSummary } from '../../src/report/console-summary.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from '../metrics/make-record.js';

/** `cap`: the run's --max-concurrency; 'unknown' leaves it out of the context. */
function summary(records: RequestRecord[], dispatchLagMs: number[] | null, cap: number | null | 'unknown' = 4): string {
  const m = computeMetrics(records);
  const health = dispatchLagMs && { dispatchLagMs: Float64Array.from(dispatchLagMs), eventLoopDelayP99Ms: 1, eventLoopUtilization: 0.1, burst: false };
  const validity = judgeRun({ records, requests: m.requests, health, ignoreEos: false, clientTokenizer: 'estimate', maxFailureRate: 1, interrupted: false });
  return renderSummary(m, { title: 't', validity, ...(cap === 'unknown' ? {} : { maxConcurrency: cap }) });
}

describe('console summary', () => {
  it('shows the failure rate first, then its parts: errors by class, timeouts, cancels', () => {
    // 100 requests: 77 ok, 23 timed out — the old line read "error rate 0.00%, timeouts 23.00%".
    const records = Array.from({ length: 100 }, (_, i) =>
      i < 23 ? rec({ sent_ms: i, end_ms: i + 5, status: 'timeout', error_class: 'timeout' }) : rec({ sent_ms: i, chunks: [i + 1, i + 2] }),
    );
    expect(summary(records, null)).toContain('Failure rate 23.00% (23 of 100): errors 0.00%, timeouts 23.00%, cancelled 0.00%');
    records[99] = rec({ sent_ms: 99, end_ms: 100, status: 'error', error_class: 'http_5xx' });
    records[98] = rec({ sent_ms: 98, end_ms: 100, status: 'error', error_class: 'http_429' });
    records[97] = rec({ sent_ms: 97, end_ms: 100, status: 'error', error_class: 'http_5xx' });
    expect(summary(records, null)).toContain('Failure rate 26.00% (26 of 100): errors 3.00% (http_5xx 2, http_429 1), timeouts 23.00%, cancelled 0.00%');
  });

  it('says where late requests waited: the --max-concurrency gate or the client’s dispatcher', () => {
    // 4 requests due at 0, sent 50 ms later (held by the gate): 4 late.
    const late = Array.from({ length: 4 }, () => rec({ scheduled_ms: 0, sent_ms: 50, chunks: [60] }));
    expect(summary(late, [0, 1, 2, 1])).toContain('4 sent late (> 10 ms after schedule: all waited for a --max-concurrency slot, not for the client)');
    expect(summary(late, [0, 1, 30, 40])).toContain('4 sent late (> 10 ms after schedule: 2 waited for a --max-concurrency slot, 2 for the client\'s dispatcher)');
    expect(summary(late, [20, 30, 30, 40])).toContain("4 sent late (> 10 ms after schedule: the client's dispatcher was late)");
    // Without a cap there is no slot to wait for: only the dispatcher's share is named.
    expect(summary(late, [0, 1, 2, 1], null)).toContain("4 sent late (> 10 ms after schedule: none behind the client's dispatcher; no --max-concurrency was set)");
    expect(summary(late, [0, 1, 30, 40], null)).toContain("4 sent late (> 10 ms after schedule: 2 behind the client's dispatcher; no --max-concurrency was set)");
    expect(summary(late, [0, 1, 30, 40], 'unknown')).toContain("4 sent late (> 10 ms after schedule: 2 behind the client's dispatcher)   Duration");
    for (const cap of [null, 'unknown'] as const) expect(summary(late, [0, 1, 30, 40], cap)).not.toContain('slot');
    // Not observed (sim run, analyze of bare records): no attribution.
    expect(summary(late, null)).toContain('4 sent late (> 10 ms after schedule)   Duration');
  });

  it('states the throughput window, and the offered window when a straggler stretched it', () => {
    // 40 requests sent 0..39 s, each 1 s long with 10 tokens; one stalls and ends at 100 s.
    const records = Array.from({ length: 40 }, (_, i) => rec({ sent_ms: i * 1000, chunks: Array.from({ length: 10 }, (_, k) => i * 1000 + 100 * (k + 1)) }));
    const steady = summary(records, null);
    expect(steady).toContain('Throughput over the measured window, 40.0 s (first send → last end):');
    expect(steady).not.toContain('offered window');
    records[20] = rec({ sent_ms: 20_000, end_ms: 100_000, status: 'error', error_class: 'stalled', chunks: [20_100] });
    records[20]!.end_ms = 100_000;
    const text = summary(records, null);
    expect(text).toContain('Throughput over the measured window, 100.0 s (first send → last end):');
    // Offered window 0 → 39 s: 38 ok requests ended by 39 s (not the stalled one, not the one sent at 39 s),
    // 38 × 10 = 380 tokens (the last one's chunks all come after 39 s): 38 / 39 = 0.974 req/s, 380 / 39 = 9.74 tok/s.
    // Stretch: measured 100 s / offered 39 s = 2.56; ended after the last send: the stalled one and the last one.
    expect(text).toContain("Over the offered window, 39.0 s (first send → last send): 0.974 req/s, 9.7 output tok/s — 2 requests ending after the last send stretched the measured window 2.56×");
  });

  it('an invalid verdict names the outcome before the client', () => {
    const failed = [rec({ sent_ms: 0, end_ms: 1, status: 'error', error_class: 'connect' })];
    const text = summary(failed, [50, 50]);
    expect(text).toMatch(/Run validity: INVALID —\n {2}- no request succeeded: 1 of 1 failed \(connect 1\)\n {2}- client fell behind/);
  });
});
