import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/util/on-abort.js';
import { runLoad } from '../../src/runner/run-load.js';
import type { RequestRecord } from '../../src/record/record.js';
import type { Workload, WorkItem } from '../../src/workload/types.js';

describe('onAbort', () => {
  it('runs the handler at once when the signal has already aborted', () => {
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    onAbort(ac.signal, () => calls++);
    expect(calls).toBe(1);
  });

  it('runs it once on a later abort, and never after detaching', () => {
    const ac = new AbortController();
    let calls = 0;
    onAbort(ac.signal, () => calls++);
    const detach = onAbort(ac.signal, () => (calls += 100));
    detach();
    ac.abort();
    ac.abort();
    expect(calls).toBe(1);
    expect(onAbort(undefined, () => calls++)).toBeTypeOf('function');
    expect(calls).toBe(1);
  });
});

describe('a run whose signal aborted before it started', () => {
  it('sends nothing and says it was interrupted', async () => {
    const workload: Workload = {
      skipped: 0,
      describe: () => ({}),
      next: (): WorkItem => ({ prompt: 'p', messages: null, prompt_tokens: 1, max_tokens: 4, task: null, expected: null, session: null, turn: null }),
    };
    let sent = 0;
    const sender = {
      prepare: (item: WorkItem) => item,
      send: (rec: RequestRecord) => (sent++, Promise.resolve(rec)),
      cancelAll: () => {},
    };
    const ac = new AbortController();
    ac.abort();
    const out = await runLoad({
      plan: { mode: 'open', arrivals: [0, 0, 0][Symbol.iterator](), maxConcurrency: null },
      phases: { warmup: { requests: 0 }, cooldown: { requests: 0 }, totalRequests: 3, durationMs: null },
      totalRequests: 3,
      durationMs: null,
      graceMs: 0,
      workload,
      sender,
      clock: () => 0,
      onRecord: () => {},
      signal: ac.signal,
    });
    expect(sent).toBe(0);
    expect(out.interrupted).toBe(true);
    expect(out.records).toHaveLength(0);
  });
});
