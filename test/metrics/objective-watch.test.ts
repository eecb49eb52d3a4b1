import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseObjective } from '../../src/config/slo.js';
import { evaluateObjectives, OBJECTIVE_METRICS, ObjectiveWatch } from '../../src/metrics/index.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from './make-record.js';

const slo = (t: string) => parseObjective(t, OBJECTIVE_METRICS);
/** An ok request with the given TTFT, sent at t. */
const ttft = (ms: number, t = 0) => rec({ sent_ms: t, chunks: [t + ms, t + ms + 1] });

describe('ObjectiveWatch: early stop', () => {
  it('p95 over 100 planned requests: hopeless exactly at the 6th violating value', () => {
    // Best case: the rest all good. n = 100, ⌊99·0.95⌋ = 94: hopeless when 100 − b ≤ 94, i.e. b ≥ 6.
    const w = new ObjectiveWatch([slo('p95(ttft) < 100ms')], 100);
    for (let i = 0; i < 30; i++) w.add(ttft(10));
    for (let i = 0; i < 5; i++) w.add(ttft(500));
    expect(w.hopeless()).toBeNull();
    w.add(ttft(500));
    expect(w.hopeless()).toMatch(/^"p95\(ttft\) < 100ms" can no longer be met: 6 of 36 values/);
  });

  it('error rate below 1% over 200 planned: hopeless at the 2nd error', () => {
    const w = new ObjectiveWatch([slo('error_rate < 1%')], 200);
    w.add(rec({ status: 'error', error_class: 'http_5xx' }));
    expect(w.hopeless()).toBeNull(); // 1/200 = 0.5%
    w.add(rec({ status: 'error', error_class: 'http_5xx' }));
    expect(w.hopeless()).toMatch(/2 of at most 200/);
  });

  it('max and mean', () => {
    const max = new ObjectiveWatch([slo('max(ttft) <= 100ms')], 10);
    max.add(ttft(100));
    expect(max.hopeless()).toBeNull();
    max.add(ttft(101));
    expect(max.hopeless()).not.toBeNull();
    // mean < 50 over 10: Σ / 10 with the rest at 0 → hopeless once Σ ≥ 500.
    const mean = new ObjectiveWatch([slo('mean(ttft) < 50ms')], 10);
    mean.add(ttft(499));
    expect(mean.hopeless()).toBeNull();
    mean.add(ttft(1));
    expect(mean.hopeless()).not.toBeNull();
  });

  it('does not watch what it cannot bound: windows, throughput, lower bounds', () => {
    const w = new ObjectiveWatch([slo('p95(ttft) < 1ms over 10s'), slo('output_throughput > 1000000000'), slo('p50(ttft) > 1h')], 10);
    expect(w.watching).toBe(false);
    for (let i = 0; i < 10; i++) w.add(ttft(1000));
    expect(w.hopeless()).toBeNull();
  });

  it('ignores warm-up records', () => {
    const w = new ObjectiveWatch([slo('max(ttft) < 100ms')], 10);
    w.add(rec({ phase: 'warmup', sent_ms: 0, chunks: [500, 501] }));
    expect(w.hopeless()).toBeNull();
  });

  /**
   * Soundness against the evaluator itself: whenever the watch says hopeless, the best possible
   * rest of the stage (every remaining request ok and instant) still fails the SLO. And when the
   * stage's own end result passes, the watch never fired on any prefix.
   */
  it('never stops a stage that could still pass (property, against evaluateObjectives)', () => {
    const objectives = ['p95(ttft) < 100ms', 'p50(ttft) <= 100ms', 'p99.9(ttft) < 100ms', 'max(ttft) < 100ms', 'mean(ttft) < 100ms', 'error_rate < 5%', 'timeout_rate <= 0%'];
    fc.assert(
      fc.property(
        fc.constantFrom(...objectives),
        fc.array(fc.record({ ms: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 100, max: 400 })), status: fc.constantFrom('ok', 'ok', 'ok', 'error', 'timeout') }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 0, max: 40 }),
        (text, seen, extra) => {
          const o = slo(text);
          const planned = seen.length + extra;
          const w = new ObjectiveWatch([o], planned);
          const done: RequestRecord[] = [];
          let fired = false;
          seen.forEach((s, i) => {
            const r = s.status === 'ok' ? ttft(s.ms, i) : rec({ sent_ms: i, end_ms: i + 1, status: s.status as 'error' | 'timeout' });
            done.push(r);
            w.add(r);
            if (w.hopeless() === null) return;
            fired = true;
            // Best case for the rest: every remaining request ok with a TTFT of 0 ms.
            const best = [...done, ...Array.from({ length: planned - done.length }, (_, j) => ttft(0, 1000 + j))];
            expect(evaluateObjectives(best, [o])[0]!.pass).toBe(false);
          });
          if (extra === 0 && evaluateObjectives(done, [o])[0]!.pass) expect(fired).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
