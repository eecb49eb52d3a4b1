import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../src/observe/exposition.js';

describe('Prometheus text exposition parser', () => {
  it('reads gauges, counters and labelled histograms series by series (the npm parser merged them)', () => {
    const text = [
      '# HELP vllm:num_requests_running Number of requests.',
      '# TYPE vllm:num_requests_running gauge',
      'vllm:num_requests_running{model_name="a",engine="0"} 3',
      'vllm:num_requests_running{model_name="b",engine="0"} 4.5',
      '# TYPE vllm:ttft_seconds histogram',
      'vllm:ttft_seconds_bucket{le="0.1",model_name="a"} 1',
      'vllm:ttft_seconds_bucket{le="+Inf",model_name="a"} 4',
      'vllm:ttft_seconds_count{model_name="a"} 4',
      'vllm:ttft_seconds_sum{model_name="a"} 2.5',
      'vllm:ttft_seconds_bucket{model_name="b",le="0.1"} 2',
      'vllm:ttft_seconds_bucket{model_name="b",le="+Inf"} 2',
      'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1"} 55 1700000000000',
      'broken{a="x} 1',
      'no_value',
    ].join('\n');
    const e = parseExposition(text);
    expect(e.malformed).toBe(2);
    expect(e.types.get('vllm:ttft_seconds')).toBe('histogram');
    const running = e.samples.filter((s) => s.name === 'vllm:num_requests_running');
    expect(running.map((s) => [s.labels.model_name, s.value])).toEqual([['a', 3], ['b', 4.5]]);
    const buckets = e.samples.filter((s) => s.name === 'vllm:ttft_seconds_bucket');
    expect(buckets.map((s) => [s.labels.model_name, s.labels.le, s.value])).toEqual([
      ['a', '0.1', 1],
      ['a', '+Inf', 4],
      ['b', '0.1', 2],
      ['b', '+Inf', 2],
    ]);
    expect(buckets.every((s) => s.family === 'vllm:ttft_seconds')).toBe(true);
    expect(e.samples.find((s) => s.name === 'vllm:ttft_seconds_sum')?.value).toBe(2.5);
    expect(e.samples.find((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL')?.value).toBe(55);
  });

  it('unescapes label values and reads NaN and ±Inf', () => {
    const e = parseExposition('x{a="q\\"uote",b="back\\\\slash",c="new\\nline"} NaN\ny +Inf\nz -Inf\n');
    expect(e.samples[0]?.labels).toEqual({ a: 'q"uote', b: 'back\\slash', c: 'new\nline' });
    expect(Number.isNaN(e.samples[0]?.value)).toBe(true);
    expect(e.samples[1]?.value).toBe(Infinity);
    expect(e.samples[2]?.value).toBe(-Infinity);
  });

  it("agrees with prom-client's writer on random metric sets", async () => {
    const labelValue = fc.string({ maxLength: 8 });
    const value = fc.double({ min: -1e6, max: 1e6, noNaN: true });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ a: labelValue, b: labelValue, g: value, c: fc.double({ min: 0, max: 1e6, noNaN: true }), obs: fc.array(fc.double({ min: 0, max: 20, noNaN: true }), { maxLength: 10 }) }), { minLength: 1, maxLength: 5 }),
        async (rows) => {
          const reg = new Registry();
          const gauge = new Gauge({ name: 'test_gauge', help: 'g', labelNames: ['a', 'b'], registers: [reg] });
          const counter = new Counter({ name: 'test_counter_total', help: 'c', labelNames: ['a', 'b'], registers: [reg] });
          const hist = new Histogram({ name: 'test_hist_seconds', help: 'h', labelNames: ['a', 'b'], buckets: [0.1, 1, 10], registers: [reg] });
          const expected = new Map<string, { g: number; c: number; obs: number[] }>();
          for (const r of rows) {
            const key = JSON.stringify([r.a, r.b]);
            const e = expected.get(key) ?? { g: 0, c: 0, obs: [] };
            gauge.set({ a: r.a, b: r.b }, r.g);
            counter.inc({ a: r.a, b: r.b }, r.c);
            for (const o of r.obs) hist.observe({ a: r.a, b: r.b }, o);
            expected.set(key, { g: r.g, c: e.c + r.c, obs: [...e.obs, ...r.obs] });
          }
          const parsed = parseExposition(await reg.metrics());
          expect(parsed.malformed).toBe(0);
          for (const [key, want] of expected) {
            const [a, b] = JSON.parse(key) as [string, string];
            const mine = parsed.samples.filter((s) => s.labels.a === a && s.labels.b === b);
            expect((mine.find((s) => s.name === 'test_gauge')?.value ?? NaN) + 0).toBe(want.g + 0); // -0 is written as 0
            expect(mine.find((s) => s.name === 'test_counter_total')?.value).toBeCloseTo(want.c, 6);
            const count = mine.find((s) => s.name === 'test_hist_seconds_count')?.value ?? 0;
            expect(count).toBe(want.obs.length);
            const le1 = mine.find((s) => s.name === 'test_hist_seconds_bucket' && s.labels.le === '1')?.value ?? 0;
            expect(le1).toBe(want.obs.filter((o) => o <= 1).length);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
