import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatObjective, parseObjective } from '../../src/config/slo.js';
import { OBJECTIVE_METRICS, objectiveCatalog, MetricRegistry, METRICS } from '../../src/metrics/index.js';
import { SloListSchema } from '../../src/session/run-spec.js';

const parse = (t: string) => parseObjective(t, OBJECTIVE_METRICS);

describe('parseObjective', () => {
  it('reads the forms SRE docs write', () => {
    expect(parse('p95(ttft) < 1.5s')).toEqual({
      text: 'p95(ttft) < 1.5s',
      metric: 'ttft_ms',
      unit: 'ms',
      statistic: { kind: 'percentile', p: 95 },
      op: '<',
      threshold: 1500,
      window_ms: null,
      attainment: 1,
    });
    expect(parse('p95(tpot) < 80ms')).toMatchObject({ metric: 'tpot_ms', threshold: 80 });
    expect(parse('error_rate < 0.1%')).toMatchObject({ metric: 'error_rate', statistic: null, threshold: 0.001, unit: 'ratio' });
    expect(parse('p99(ttft) <= 500ms over 5m >= 99.9%')).toMatchObject({ op: '<=', threshold: 500, window_ms: 300_000, attainment: 0.999 });
    expect(parse('  P99.9(ITL)≤20ms ')).toMatchObject({ metric: 'itl_ms', statistic: { kind: 'percentile', p: 99.9 }, op: '<=' });
    expect(parse('output_throughput >= 1000tok/s over 30s')).toMatchObject({ metric: 'output_throughput', op: '>=', threshold: 1000, window_ms: 30_000 });
    expect(parse('mean(ttft_from_schedule) < 2s')).toMatchObject({ metric: 'ttft_from_schedule_ms', statistic: { kind: 'mean' } });
    expect(parse('timeout_rate <= 0.005')).toMatchObject({ threshold: 0.005 });
    expect(parse('goodput >= 5 over 1m >= 0.99')).toMatchObject({ metric: 'goodput', attainment: 0.99 });
    // every window must hold: ">= 100%" is the default, so the canonical text leaves it out
    expect(parse('p99(ttft) <= 500ms over 5m >= 100%')).toMatchObject({ text: 'p99(ttft) <= 500ms over 5m', attainment: 1 });
    expect(parse('p99(ttft) <= 500ms over 5m >= 99.99%').text).toBe('p99(ttft) <= 500ms over 5m >= 99.99%');
  });

  it('names the part that is wrong', () => {
    expect(() => parse('p99(ttfx) < 1s')).toThrow(/unknown metric "ttfx"; expected one of .*ttft.*tpot/);
    expect(() => parse('ttft < 1s')).toThrow(/name a statistic, e.g. p95\(ttft\)/);
    expect(() => parse('p95(error_rate) < 1%')).toThrow(/one value per window/);
    expect(() => parse('p101(ttft) < 1s')).toThrow(/unknown statistic "p101"/);
    expect(() => parse('p95(ttft) 1s')).toThrow(/no comparison/);
    expect(() => parse('p95(ttft) <')).toThrow(/no threshold/);
    expect(() => parse('p95(ttft) < fast')).toThrow(/threshold "fast"/);
    expect(() => parse('error_rate < 150%')).toThrow(/at most 100%/);
    expect(() => parse('p95(ttft) < 1s >= 99%')).toThrow(/attainment target needs a window/);
    expect(() => parse('p95(ttft) < 1s over 5x')).toThrow(/window "5x"/);
    expect(() => parse('p95(ttft) < 1s over 0s')).toThrow(/longer than 0/);
    expect(() => parse('p95(ttft) < 1s over 5m >= 0%')).toThrow(/attainment "0%"/);
    // Every message quotes the SLO it is about.
    expect(() => parse('p99(ttfx) < 1s')).toThrow(/^"p99\(ttfx\) < 1s": /);
  });

  it('canonical text parses back to the same objective', () => {
    const names = ['ttft', 'tpot', 'itl', 'e2el', 'error_rate', 'output_throughput'];
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.constantFrom('<', '<=', '>', '>='),
        fc.integer({ min: 1, max: 100_000 }),
        fc.option(fc.integer({ min: 1, max: 7200 }), { nil: null }),
        fc.integer({ min: 1, max: 1000 }),
        (name, op, n, windowS, att) => {
          const info = OBJECTIVE_METRICS.get(name)!;
          const o = {
            metric: info.id,
            unit: info.unit,
            statistic: info.kind === 'run' ? null : ({ kind: 'percentile', p: 99 } as const),
            op: op as '<',
            threshold: info.unit === 'ratio' ? n / 100_000 : n,
            window_ms: windowS === null ? null : windowS * 1000,
            attainment: windowS === null ? 1 : att / 1000,
          };
          const text = formatObjective(o, info.name);
          expect(parse(text)).toEqual({ text, ...o });
        },
      ),
    );
  });

  it('takes its metrics from the registry: a registered metric becomes usable', () => {
    const answer = { kind: 'request', id: 'answer_ttft_ms', label: 'TTFAT', unit: 'ms', over: 'ok', formula: 'x', value: () => 1 } as const;
    const catalog = objectiveCatalog(new MetricRegistry([...METRICS.all, answer]));
    expect(parseObjective('p95(answer_ttft) < 2s', catalog)).toMatchObject({ metric: 'answer_ttft_ms', threshold: 2000 });
    expect(() => parse('p95(answer_ttft) < 2s')).toThrow(/unknown metric/);
  });
});

describe('slos: in the spec file', () => {
  it('accepts strings and the object form', () => {
    const r = SloListSchema.parse(['p95(ttft) < 1.5s', { metric: 'ttft', statistic: 'p99', op: '<=', threshold: '500ms', window: '5m', attainment: '99.9%' }, { metric: 'error_rate', threshold: '0.1%' }]);
    expect(r.map((o) => o.text)).toEqual(['p95(ttft) < 1.5s', 'p99(ttft) <= 500ms over 5m >= 99.9%', 'error_rate < 0.1%']);
  });

  it('rejects a malformed entry with the parser message', () => {
    const r = SloListSchema.safeParse([{ metric: 'ttfx', statistic: 'p95', threshold: 1 }]);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(/unknown metric "ttfx"/);
  });
});
