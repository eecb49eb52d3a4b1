/**
 * The bottleneck line on hand-built server series: one case per cause, the order in which
 * causes are tried (KV pressure explains the queue it creates), and no finding without evidence.
 */
import { describe, expect, it } from 'vitest';
import { diagnoseBottleneck, type ServerSeries } from '../../src/report/data/bottleneck.js';

/** A histogram summary (seconds) with only its mean: what the rules read. */
const h = (meanS: number) => ({ mean: meanS, p50: meanS, p90: meanS, p99: meanS, count: 100 });

/** The server's per-request time split (s): queue, prefill, decode, and its TTFT and end-to-end means. */
const split = (queue: number, prefill: number, decode: number, ttft: number, e2el: number): ServerSeries => ({
  queue_time_s: h(queue),
  prefill_time_s: h(prefill),
  decode_time_s: h(decode),
  ttft_s: h(ttft),
  e2el_s: h(e2el),
});

describe('diagnoseBottleneck', () => {
  it('queue-bound: many waiting, queue time most of the server TTFT', () => {
    const s: ServerSeries = {
      running: { mean: 64, max: 64 },
      waiting: { mean: 12.4, max: 30 },
      kv_usage: { mean: 0.5, max: 0.62 },
      preemptions_per_s: { mean: 0, total: 0 },
      ...split(0.8, 0.05, 2, 0.86, 2.9),
    };
    const b = diagnoseBottleneck(s)!;
    expect(b.kind).toBe('queueing');
    expect(b.evidence).toEqual(['12.4 requests waiting on average (peak 30)', "queue time 800 ms of the server's 860 ms TTFT (93 %)"]);
  });

  it('queue-bound from the TTFT split alone (an engine without a waiting gauge)', () => {
    const b = diagnoseBottleneck({ queue_time_s: h(0.3), prefill_time_s: h(0.1), decode_time_s: h(1) })!;
    expect(b.kind).toBe('queueing');
    // No ttft_s: queue + prefill stands for it.
    expect(b.evidence).toEqual(["queue time 300 ms of the server's 400 ms TTFT (75 %)"]);
  });

  it('KV-bound with preemptions, even though requests also queue', () => {
    const s: ServerSeries = {
      waiting: { mean: 8, max: 20 },
      kv_usage: { mean: 0.88, max: 0.99 },
      preemptions_per_s: { mean: 0.4, total: 12 },
      queue_time_s: h(0.5),
      ttft_s: h(0.6),
    };
    const b = diagnoseBottleneck(s)!;
    expect(b.kind).toBe('kv_pressure');
    expect(b.evidence).toEqual(['KV-cache usage peaked at 99 %', '12 preemptions', '8.0 requests waiting on average']);
    // A full cache without preemptions is not pressure: the queue is the finding.
    expect(diagnoseBottleneck({ ...s, preemptions_per_s: { mean: 0, total: 0 } })!.kind).toBe('queueing');
    // Preemptions with the cache well below full are not blamed on it.
    expect(diagnoseBottleneck({ ...s, kv_usage: { mean: 0.5, max: 0.7 } })!.kind).toBe('queueing');
  });

  it('prefill-bound: long prompts, prefill outweighs decode, no queue', () => {
    const s: ServerSeries = {
      waiting: { mean: 0.1, max: 1 },
      queue_time_s: h(0.002),
      prefill_time_s: h(0.9),
      decode_time_s: h(0.4),
      ttft_s: h(0.902),
      e2el_s: h(1.3),
      prompt_tokens_per_s: { mean: 40000, total: 1.2e6 },
      generation_tokens_per_s: { mean: 900, total: 27000 },
    };
    const b = diagnoseBottleneck(s)!;
    expect(b.kind).toBe('prefill');
    expect(b.evidence).toEqual(['prefill 900 ms vs. decode 400 ms per request', '40000 prompt vs. 900 generated tokens/s']);
  });

  it('decode-bound: decode is most of the end-to-end time, no queue', () => {
    const s: ServerSeries = {
      waiting: { mean: 0, max: 0 },
      ...split(0.001, 0.04, 3.2, 0.041, 3.25),
    };
    const b = diagnoseBottleneck(s)!;
    expect(b.kind).toBe('decode');
    expect(b.evidence).toEqual(["decode 3200 ms of the server's 3250 ms end-to-end time (98 %)", 'prefill 40.0 ms', '0.0 requests waiting on average']);
  });

  it('says nothing without the series that would show a cause', () => {
    expect(diagnoseBottleneck({})).toBeNull();
    expect(diagnoseBottleneck({ running: { mean: 3, max: 5 }, waiting: { mean: 0.2, max: 1 } })).toBeNull();
    // Decode only half the end-to-end time: no single cause.
    expect(diagnoseBottleneck({ prefill_time_s: h(0.2), decode_time_s: h(0.5), e2el_s: h(1), waiting: { mean: 0, max: 0 } })).toBeNull();
  });
});
