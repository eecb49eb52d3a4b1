import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { arrivalTimes } from '../../src/load/arrivals.js';
import type { RequestRecord } from '../../src/record/record.js';
import { runLoad, type RunnerOptions, type Sender } from '../../src/runner/run-load.js';
import type { Workload, WorkItem } from '../../src/workload/types.js';

const workload: Workload = {
  skipped: 0,
  describe: () => ({}),
  next: (): WorkItem => ({ prompt: 'p', messages: null, prompt_tokens: 1, max_tokens: 4, task: null, expected: null, session: null, turn: null }),
};

/**
 * A sender that answers after `latencyMs`, tracking how many requests overlap; with `releaseAt`,
 * it also answers everything in flight as soon as that many requests overlap.
 */
class FakeSender implements Sender {
  inflight = 0;
  maxInflight = 0;
  releaseAt = Infinity;
  private cancelled = false;
  private readonly waiting = new Set<() => void>();
  constructor(private readonly latencyMs: number, private readonly clock: () => number) {}
  prepare(item: WorkItem): WorkItem {
    return item;
  }
  async send(rec: RequestRecord): Promise<RequestRecord> {
    rec.sent_ms = this.clock();
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.waiting.delete(done);
        resolve();
      };
      const t = setTimeout(done, this.latencyMs);
      this.waiting.add(done);
      if (this.inflight >= this.releaseAt) for (const w of [...this.waiting]) w();
    });
    this.inflight--;
    rec.end_ms = this.clock();
    if (this.cancelled) {
      rec.status = 'cancelled';
      rec.error_class = 'cancelled';
    } else {
      rec.first_token_ms = rec.end_ms;
      rec.output_tokens = 4;
    }
    return rec;
  }
  cancelAll(): void {
    this.cancelled = true;
    for (const w of [...this.waiting]) w();
  }
}

function setup(latencyMs: number, over: Partial<RunnerOptions>) {
  const t0 = performance.now();
  const clock = () => performance.now() - t0;
  const sender = new FakeSender(latencyMs, clock);
  const opts: RunnerOptions = {
    plan: { mode: 'open', arrivals: arrivalTimes({ rate: Infinity, burstiness: 1, kind: 'poisson', seed: 0 }), maxConcurrency: null },
    phases: { warmup: { requests: 0 }, cooldown: { requests: 0 }, totalRequests: null, durationMs: null },
    totalRequests: 10,
    durationMs: null,
    graceMs: 0,
    workload,
    sender,
    clock,
    onRecord: () => {},
    ...over,
  };
  return { opts, sender };
}

describe('runLoad', () => {
  it('open loop never waits for responses to send the next request', async () => {
    // 20 requests at 100/s; no response comes before all 20 are in flight (or 10 s have passed,
    // which only a runner that waits for responses would need).
    const { opts, sender } = setup(10_000, {
      plan: { mode: 'open', arrivals: arrivalTimes({ rate: 100, burstiness: 1, kind: 'constant', seed: 0 }), maxConcurrency: null },
      totalRequests: 20,
    });
    sender.releaseAt = 20;
    const out = await runLoad(opts);
    expect(out.records).toHaveLength(20);
    expect(sender.maxInflight).toBe(20);
    const byId = [...out.records].sort((a, b) => a.id - b.id);
    byId.forEach((r, i) => {
      expect(r.scheduled_ms).toBeCloseTo(i * 10, 6);
      expect(r.sent_ms).toBeGreaterThanOrEqual(r.scheduled_ms); // how soon after: test/timing/
      expect(r.status).toBe('ok');
    });
    expect(out.dispatchLagMs.length).toBe(20);
  });

  it('--max-concurrency holds requests back and the wait shows as lateness', async () => {
    const seen: RequestRecord[] = [];
    const { opts, sender } = setup(60, {
      plan: { mode: 'open', arrivals: arrivalTimes({ rate: Infinity, burstiness: 1, kind: 'poisson', seed: 0 }), maxConcurrency: 2 },
      totalRequests: 6,
      onRecord: (r) => seen.push(r),
    });
    const out = await runLoad(opts);
    expect(sender.maxInflight).toBe(2);
    expect(seen).toHaveLength(6);
    for (const r of out.records) expect(r.scheduled_ms).toBe(0);
    // Two slots: the k-th send (k ≥ 2, in send order) waited for k − 1 answers, so it went out no
    // sooner than the (k − 1)-th end; its lateness (sent − scheduled 0) is that wait.
    const sent = out.records.map((r) => r.sent_ms).sort((a, b) => a - b);
    const ends = out.records.map((r) => r.end_ms).sort((a, b) => a - b);
    for (let k = 2; k < 6; k++) expect(sent[k]).toBeGreaterThanOrEqual(ends[k - 2]!);
    // and every answer took its 60 ms (a timer may fire up to 1 ms early on its ms clock)
    for (const r of out.records) expect(r.end_ms - r.sent_ms).toBeGreaterThanOrEqual(59);
    expect(sent[5]).toBeGreaterThanOrEqual(2 * 59);
  });

  it('closed loop keeps exactly N in flight and sets scheduled = sent', async () => {
    const { opts, sender } = setup(20, { plan: { mode: 'closed', concurrency: 3 }, totalRequests: 12 });
    const out = await runLoad(opts);
    expect(out.records).toHaveLength(12);
    expect(sender.maxInflight).toBe(3);
    for (const r of out.records) expect(r.scheduled_ms).toBe(r.sent_ms);
    expect(new Set(out.records.map((r) => r.id)).size).toBe(12);
  });

  it('--duration stops sending, then cancels what outlives the grace period', async () => {
    // Answers would take 60 s (twice the test's time limit): only the cancel can end this run.
    const { opts } = setup(60_000, {
      plan: { mode: 'open', arrivals: arrivalTimes({ rate: 50, burstiness: 1, kind: 'constant', seed: 0 }), maxConcurrency: null },
      totalRequests: null,
      durationMs: 200,
      graceMs: 50,
    });
    const out = await runLoad(opts);
    // Sent at 0, 20, …, 180 ms: 10 requests.
    expect(out.records).toHaveLength(10);
    for (const r of out.records) expect(r.status).toBe('cancelled');
  });

  it('waits out what is in flight without attaching to every request on each completion', async () => {
    // 1,500 requests finishing one millisecond tick after another. Racing the whole pending set
    // at each completion (the old drain) made ~n²/2 promise reactions: ≈ 250 per request here.
    const n = 1500;
    let k = 0;
    const sender: Sender = {
      prepare: (item: WorkItem) => item,
      send: (rec: RequestRecord) =>
        new Promise<RequestRecord>((resolve) =>
          setTimeout(() => {
            rec.output_tokens = 1;
            resolve(rec);
          }, 1 + (k++ % 300)),
        ),
      cancelAll: () => {},
    };
    let promises = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
    const { opts } = setup(0, { sender, totalRequests: n });
    const out = await runLoad(opts);
    hook.disable();
    expect(out.records).toHaveLength(n);
    expect(promises / n).toBeLessThan(20);
  });

  it('assigns phases by index', async () => {
    const { opts } = setup(1, {
      totalRequests: 10,
      phases: { warmup: { requests: 2 }, cooldown: { requests: 1 }, totalRequests: 10, durationMs: null },
    });
    const out = await runLoad(opts);
    const phase = (id: number) => out.records.find((r) => r.id === id)!.phase;
    expect([phase(0), phase(1), phase(2), phase(8), phase(9)]).toEqual(['warmup', 'warmup', 'measure', 'measure', 'cooldown']);
  });

  it('an abort signal ends the run early, cancelling in-flight and queued requests', async () => {
    const ac = new AbortController();
    const { opts } = setup(10_000, {
      plan: { mode: 'open', arrivals: arrivalTimes({ rate: Infinity, burstiness: 1, kind: 'poisson', seed: 0 }), maxConcurrency: 3 },
      totalRequests: 8,
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 50);
    const out = await runLoad(opts);
    expect(out.interrupted).toBe(true);
    expect(out.records).toHaveLength(8);
    for (const r of out.records) expect(r.status).toBe('cancelled');
  });
});
