import { describe, expect, it } from 'vitest';
import { AnswerEvaluation, type EvaluateAnswer } from '../../src/runner/answer-evaluation.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import type { AnswerCheck } from '../../src/runner/loop-context.js';

const exact = (expected: string): AnswerCheck => ({ kind: 'exact', expected });

function answered(id: number, text: string | null): RequestRecord {
  const r = emptyRecord(id, 0);
  r.output_text = text;
  return r;
}

/** An evaluator whose answers resolve only when the test says so, counting how many run at once. */
function gatedEvaluator() {
  const gates: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  const evaluate: EvaluateAnswer = async (check, answer) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((r) => gates.push(r));
    running--;
    const expected = check.kind === 'exact' ? check.expected : '';
    return answer === expected ? { pass: true, outcome: 'correct', reason: 'ok' } : { pass: false, outcome: 'wrong', reason: `expected "${expected}"` };
  };
  return { evaluate, gates, max: () => maxRunning };
}

describe('AnswerEvaluation', () => {
  it('passes unchecked records straight through and fills quality before a checked one reaches the sink', async () => {
    const out: RequestRecord[] = [];
    const ev = new AnswerEvaluation({ evaluate: async (_c, a) => ({ pass: a === '4', outcome: a === '4' ? 'correct' : 'wrong', reason: 'r' }), sink: (r) => out.push(r), concurrency: 2 });
    ev.accept(answered(0, null));
    expect(out.map((r) => r.id)).toEqual([0]);
    ev.accept(answered(1, '4'), exact('4'));
    ev.accept(answered(2, '5'), exact('4'));
    await ev.drain();
    expect(out.map((r) => [r.id, r.quality?.pass, r.quality?.kind])).toEqual([
      [0, undefined, undefined],
      [1, true, 'exact'],
      [2, false, 'exact'],
    ]);
    // The answer text of a checked request stays in the record (compare's identical-output share).
    expect(out[1]!.output_text).toBe('4');
  });

  it('runs at most `concurrency` evaluations at once and never loses a record', async () => {
    const g = gatedEvaluator();
    const out: RequestRecord[] = [];
    const ev = new AnswerEvaluation({ evaluate: g.evaluate, sink: (r) => out.push(r), concurrency: 3 });
    for (let i = 0; i < 10; i++) ev.accept(answered(i, String(i % 2)), exact('0'));
    expect(ev.pending).toBe(10);
    let drained = false;
    const d = ev.drain().then(() => (drained = true));
    while (out.length < 10) {
      await new Promise((r) => setImmediate(r));
      g.gates.splice(0).forEach((open) => open());
    }
    await d;
    expect(drained).toBe(true);
    expect(g.max()).toBe(3);
    expect(out.map((r) => r.id).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(out.filter((r) => r.quality!.pass).length).toBe(5);
  });

  it('holds evaluations until drain() when deferred (--workers 0: the load owns this thread)', async () => {
    let calls = 0;
    const out: RequestRecord[] = [];
    const ev = new AnswerEvaluation({ evaluate: async () => (calls++, { pass: true, outcome: 'correct', reason: '' }), sink: (r) => out.push(r), concurrency: 4, deferUntilDrain: true });
    ev.accept(answered(0, 'x'), exact('x'));
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(0);
    expect(out).toHaveLength(0);
    await ev.drain();
    expect(calls).toBe(1);
    expect(out).toHaveLength(1);
  });

  it('a failed request is not evaluated; a check that throws becomes a failed outcome, not a lost record', async () => {
    const out: RequestRecord[] = [];
    const ev = new AnswerEvaluation({
      evaluate: async () => {
        throw new Error('bad pattern\nstack…');
      },
      sink: (r) => out.push(r),
      concurrency: 1,
    });
    const failed = answered(0, null);
    failed.status = 'error';
    failed.error_class = 'http_5xx';
    ev.accept(failed, exact('x'));
    ev.accept(answered(1, 'x'), exact('x'));
    await ev.drain();
    expect(out[0]!.quality).toEqual({ kind: 'exact', pass: false, outcome: 'empty', reason: 'no answer: request error (http_5xx)' });
    expect(out[1]!.quality).toMatchObject({ pass: false, reason: 'check could not be evaluated: bad pattern' });
    expect(ev.failures).toBe(1);
  });

  it('drain() resolves at once when nothing is pending', async () => {
    const ev = new AnswerEvaluation({ evaluate: async () => ({ pass: true, outcome: 'correct', reason: '' }), sink: () => {}, concurrency: 1 });
    await ev.drain();
    expect(ev.pending).toBe(0);
  });
});
