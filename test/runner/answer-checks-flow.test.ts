/**
 * The answer check of each request travels beside its record from the dispatch loop to the
 * record sink (issue 15), and only checked requests keep their text — over real HTTP against the
 * built-in simulator, in the open loop (requests prepared ahead), the closed loop and sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { HttpTarget } from '../../src/client/http-client.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { runLoad, type AnswerCheck, type LoadPlan } from '../../src/runner/run-load.js';
import type { Session, Workload, WorkItem } from '../../src/workload/types.js';
import type { PhaseBounds } from '../../src/load/phases.js';

const PHASES: PhaseBounds = { warmup: { requests: 0 }, cooldown: { requests: 0 }, totalRequests: null, durationMs: null };

/** Every third item carries an exact check naming its index. */
function checkedWorkload(): Workload {
  let i = 0;
  const item = (): WorkItem => {
    const n = i++;
    return {
      prompt: `question ${n}`,
      messages: null,
      prompt_tokens: 2,
      max_tokens: 3,
      task: n % 3 === 0 ? 'checked' : 'plain',
      expected: null,
      session: null,
      turn: null,
      ...(n % 3 === 0 ? { check: { kind: 'exact', expected: String(n) } as const } : {}),
    };
  };
  return {
    skipped: 0,
    describe: () => ({}),
    next: item,
    nextSession: (): Session => {
      const a = item();
      const b = item();
      return { id: `s${a.prompt}`, turns: [{ ...a, session: 's', turn: 0 }, { ...b, session: 's', turn: 1 }] };
    },
  };
}

describe('answer checks through the dispatch loop', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  const plans: Array<[string, () => LoadPlan]> = [
    ['open loop', () => ({ mode: 'open', arrivals: [0, 1, 2, 3, 4, 5, 6, 7, 8][Symbol.iterator](), maxConcurrency: 2 })],
    ['closed loop', () => ({ mode: 'closed', concurrency: 2 })],
  ];
  for (const [name, plan] of plans) {
    it(`${name}: the sink gets each checked request's check, and only those keep their text`, async () => {
      const t0 = performance.now();
      const clock = () => performance.now() - t0;
      const target = new HttpTarget(
        { baseUrl: sim.url, path: '/v1/completions', model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 10_000, keepText: false },
        clock,
      );
      const seen: Array<{ rec: RequestRecord; check: AnswerCheck | undefined }> = [];
      const workload = checkedWorkload();
      await runLoad({ plan: plan(), phases: PHASES, totalRequests: 9, durationMs: null, graceMs: 0, workload, sender: target, clock, onRecord: (rec, check) => seen.push({ rec, check }) });
      target.close();
      expect(seen).toHaveLength(9);
      for (const { rec, check } of seen) {
        expect(rec.status).toBe('ok');
        if (rec.task === 'checked') {
          expect(check?.kind).toBe('exact');
          expect(rec.output_text).not.toBeNull();
          expect(rec.output_text!.length).toBeGreaterThan(0);
        } else {
          expect(check).toBeUndefined();
          expect(rec.output_text).toBeNull();
        }
      }
      // Items 0, 3, 6 carry checks; the open loop prepares ahead, so a check must follow its own item.
      const checkedIds = seen.filter((s) => s.check).map((s) => (s.check as { expected: string }).expected).sort();
      expect(checkedIds).toEqual(['0', '3', '6']);
    });
  }

  it('sessions: a checked turn keeps its text though the reply is otherwise dropped', async () => {
    const t0 = performance.now();
    const clock = () => performance.now() - t0;
    const target = new HttpTarget(
      { baseUrl: sim.url, path: '/v1/completions', model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 10_000, keepText: true },
      clock,
    );
    const workload = checkedWorkload();
    const seen: Array<{ rec: RequestRecord; check: AnswerCheck | undefined }> = [];
    await runLoad({
      plan: { mode: 'sessions', users: 1, arrivals: null, nextSession: workload.nextSession!, substituteReplies: true, keepText: false },
      phases: PHASES,
      totalRequests: 6,
      durationMs: null,
      graceMs: 0,
      workload,
      sender: target,
      clock,
      onRecord: (rec, check) => seen.push({ rec, check }),
    });
    target.close();
    expect(seen).toHaveLength(6);
    for (const { rec, check } of seen) expect(rec.output_text !== null).toBe(check !== undefined);
    expect(seen.filter((s) => s.check).length).toBe(2);
  });
});
