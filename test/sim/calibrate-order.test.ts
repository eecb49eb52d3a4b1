/**
 * `sim calibrate` reads a run's records in the order the file has them: completion order
 * (docs/records.md), which streamed runs (real servers, `sim run`) write. The replay must send
 * the requests in dispatch order whatever that order: a closed loop's first wave is sent at the
 * same instant, and giving its prompts to the engine in completion order is another run. The
 * simulator's own run, replayed with the parameters it ran with, must then fit exactly.
 */
import { describe, expect, it } from 'vitest';
import { fitError, replay, type CalibrationRun, type MeasuredRequest } from '../../src/sim/calibrate/fit.js';
import { runVirtual, type VirtualRequest } from '../../src/sim/virtual.js';
import type { RequestRecord } from '../../src/record/record.js';
import { coldStartLatency } from '../../src/metrics/cold-start.js';

const ENGINE = { memory_efficiency: 0.7, compute_efficiency: 0.42, request_overhead_ms: 0.05, frontend_latency_ms: 14 };

function measured(r: RequestRecord): MeasuredRequest {
  return {
    id: r.id,
    scheduled_ms: r.scheduled_ms,
    sent_ms: r.sent_ms,
    prompt_tokens: r.prompt_tokens!,
    output_tokens: r.output_tokens,
    ttft_ms: r.first_token_ms! - r.sent_ms,
    tpot_ms: (r.end_ms - r.first_token_ms!) / (r.output_tokens - 1),
  };
}

/** A closed-loop run of 8 users with prompts of distinct lengths; its records in completion order. */
function closedRun(): RequestRecord[] {
  const requests: VirtualRequest[] = Array.from({ length: 24 }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: 128 + ((i * 397) % 1800), max_tokens: 16 + ((i * 7) % 33) }));
  const done: RequestRecord[] = [];
  runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', engine: ENGINE, requests, closedLoopConcurrency: 8, onRecord: (r) => done.push(r) });
  return done;
}

describe('calibrate replays records in dispatch order', () => {
  it('completion order (as records.jsonl has it) and id order replay the same run, which fits exactly', () => {
    const done = closedRun();
    const ids = done.map((r) => r.id);
    // The premise: the file order is not id order, and the first wave ties on sent_ms.
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
    expect(done.filter((r) => r.sent_ms === 0)).toHaveLength(8);

    const asRun = (rs: RequestRecord[]): CalibrationRun => ({ label: 'x', concurrency: 8, max_concurrency: null, requests: rs.map(measured) });
    const byCompletion = asRun(done);
    const byId = asRun([...done].sort((a, b) => a.id - b.id));
    const a = replay(byCompletion, 'h100', 'llama-3.1-8b', ENGINE);
    const b = replay(byId, 'h100', 'llama-3.1-8b', ENGINE);
    // Request by request (the replay's figures follow each run's own order of requests).
    const byReq = (run: CalibrationRun, s: typeof a) => new Map(run.requests.map((q, i) => [q.id, [s.ttft[i], s.tpot[i]]]));
    expect(byReq(byCompletion, a)).toEqual(byReq(byId, b));
    for (const [run, sim] of [[byCompletion, a], [byId, b]] as const) {
      const err = fitError([run], [sim]);
      expect(err.ttft).toBeLessThan(1e-9);
      expect(err.tpot).toBeLessThan(1e-9);
    }
  });

  it('cold start takes the first requests by send time, ties by id, whatever the file order', () => {
    const done = closedRun();
    const sorted = [...done].sort((a, b) => a.id - b.id);
    expect(coldStartLatency(done, 4)).toEqual(coldStartLatency(sorted, 4));
    expect(coldStartLatency([...done].reverse(), 4)).toEqual(coldStartLatency(sorted, 4));
  });
});
