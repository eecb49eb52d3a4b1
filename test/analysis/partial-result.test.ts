/**
 * The partial_result finding of a distributed run: it names the worker and its missing ids
 * (hand-written expectations), comes before the client's own findings, and `analyze` — which
 * cannot see the workers again — carries it over from the original verdict.
 */
import { describe, expect, it } from 'vitest';
import { partialResultReason } from '../../src/analysis/run-validity.js';
import { judgeRun } from '../../src/analysis/verdict.js';
import { computeMetrics } from '../../src/metrics/index.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';

const rec = (id: number): RequestRecord => ({ ...emptyRecord(id, id), sent_ms: id, end_ms: id + 10, token_source: 'usage', output_tokens: 4 });

describe('partial_result', () => {
  it('names the worker, how many requests are missing and which (the first 8)', () => {
    const ids = Array.from({ length: 10 }, (_, k) => 2 + 3 * k);
    expect(partialResultReason({ node: 2, reason: 'stopped sending heartbeats (none for 10.0 s)', missing: 10, missing_ids: ids, received: 3 })).toBe(
      'partial result: worker 2 stopped sending heartbeats (none for 10.0 s); 10 of its requests have no record (ids 2, 5, 8, 11, 14, 17, 20, 23, … +2 more); 3 of its records were received and are kept',
    );
    expect(partialResultReason({ node: 0, reason: 'x', missing: null, missing_ids: [], received: 5 })).toBe(
      'partial result: worker 0 x; how many of its requests are missing is unknown (the run stops by time); 5 of its records were received and are kept',
    );
  });

  it('makes the run invalid, first among the client findings, and analyze keeps it', () => {
    const records = [rec(0), rec(1), rec(3)];
    const incomplete = [{ node: 1, reason: 'lost', missing: 1, missing_ids: [4], received: 1 }];
    const health = { dispatchLagMs: new Float64Array([50, 50, 50]), eventLoopDelayP99Ms: null, eventLoopUtilization: null, burst: false };
    const base = { records, requests: computeMetrics(records).requests, ignoreEos: false, clientTokenizer: 'estimate' as const, maxFailureRate: 0.05, interrupted: false };
    const v = judgeRun({ ...base, health, incomplete });
    expect(v.valid).toBe(false);
    expect(v.failed_checks).toEqual(['partial_result', 'dispatch_lag']);
    expect(v.reasons[0]).toMatch(/^partial result: worker 1 lost; 1 of its requests have no record \(ids 4\)/);
    // Re-analysed from the records alone: the finding comes from the original verdict.
    const again = judgeRun({ ...base, health: null, prior: v });
    expect(again.failed_checks).toEqual(['partial_result', 'dispatch_lag']);
    expect(again.reasons).toEqual(v.reasons);
  });
});
