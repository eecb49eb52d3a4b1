import { describe, expect, it } from 'vitest';
import { assessTrend, trendMetric } from '../../src/history/trend.js';
import { parseSince } from '../../src/history/history-query.js';
import { canonicalJson, specHash } from '../../src/analysis/comparable-spec.js';

const pt = (run_id: string, value: number | null, extra: { valid?: boolean | null; interrupted?: boolean } = {}) => ({
  run_id,
  started_at: `2026-11-0${run_id}T00:00:00Z`,
  value,
  valid: extra.valid ?? true,
  interrupted: extra.interrupted ?? false,
});

describe('trend verdict (pure)', () => {
  it('flags a latency that rose beyond the threshold against the previous comparable run', () => {
    // 100 → 104 (+4 %) → 120: +15.4 % against 104, over a 10 % threshold
    const t = assessTrend('ttft_p99_ms', 'abc', [pt('1', 100), pt('2', 104), pt('3', 120)], 0.1);
    expect(t.points.map((p) => p.change)).toEqual([null, 0.04, (120 - 104) / 104]);
    expect(t.regression).toEqual({ run_id: '3', previous_run_id: '2', value: 120, previous: 104, change: (120 - 104) / 104 });
  });

  it('a change of exactly the threshold is not a regression (it must exceed it)', () => {
    // (110 − 100) / 100 and (900 − 1000) / 1000 are exactly ±0.1 in binary floating point
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', 100), pt('2', 110)], 0.1).regression).toBeNull();
    expect(assessTrend('output_throughput', 'h', [pt('1', 1000), pt('2', 900)], 0.1).regression).toBeNull();
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', 100), pt('2', 110.001)], 0.1).regression?.run_id).toBe('2');
    expect(assessTrend('output_throughput', 'h', [pt('1', 1000), pt('2', 899.99)], 0.1).regression?.run_id).toBe('2');
  });

  it('throughput regresses downwards; a rise is no regression', () => {
    expect(assessTrend('output_throughput', 'h', [pt('1', 1000), pt('2', 850)], 0.1).regression?.change).toBeCloseTo(-0.15, 12);
    expect(assessTrend('output_throughput', 'h', [pt('1', 1000), pt('2', 2000)], 0.1).regression).toBeNull();
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', 100), pt('2', 50)], 0.1).regression).toBeNull();
  });

  it('skips invalid and interrupted runs: they are neither judged nor the baseline', () => {
    const t = assessTrend('ttft_p99_ms', 'h', [pt('1', 100), pt('2', 500, { valid: false }), pt('3', 105), pt('4', 900, { interrupted: true })], 0.1);
    expect(t.points.map((p) => p.comparable)).toEqual([true, false, true, false]);
    expect(t.points[2]!.change).toBeCloseTo(0.05, 12); // 105 against 100, not 500
    expect(t.regression).toBeNull();
  });

  it('an invalid newest run refuses the trend (no verdict) unless invalid runs are allowed', () => {
    const rows = [pt('1', 100, { valid: false }), { ...pt('2', 500, { valid: false }), reasons: ['no request succeeded'] }];
    const t = assessTrend('ttft_p99_ms', 'h', rows, 0.1);
    expect(t.refused).toEqual({ run_id: '2', reason: 'no request succeeded' });
    expect(t.regression).toBeNull();
    expect(t.comparable_runs).toBe(0);
    const allowed = assessTrend('ttft_p99_ms', 'h', rows, 0.1, { allowInvalid: true });
    expect(allowed.refused).toBeNull();
    expect(allowed.regression?.change).toBe(4);
    // An older invalid run does not refuse: it is skipped.
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', 100, { valid: false }), pt('2', 100)], 0.1).refused).toBeNull();
  });

  it('a single run, or none comparable, has no verdict', () => {
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', 100)], 0.1).regression).toBeNull();
    expect(assessTrend('ttft_p99_ms', 'h', [pt('1', null), pt('2', 100)], 0.1).regression).toBeNull();
  });

  it('metric names: the column, or without _ms, dashes allowed; others are a usage error', () => {
    expect(trendMetric('ttft_p99')).toBe('ttft_p99_ms');
    expect(trendMetric('output-throughput')).toBe('output_throughput');
    expect(() => trendMetric('ttft')).toThrow(/unknown metric/);
  });
});

describe('--since', () => {
  const now = new Date('2026-11-30T12:00:00Z');
  it('durations count back from now; dates are taken as given', () => {
    expect(parseSince('12h', now).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(parseSince('2w', now).toISOString()).toBe('2026-11-16T12:00:00.000Z');
    expect(parseSince('2026-11-01T08:00:00Z', now).toISOString()).toBe('2026-11-01T08:00:00.000Z');
    expect(() => parseSince('yesterday', now)).toThrow(/--since yesterday/);
  });
});

describe('spec hash', () => {
  const spec = {
    name: 'a',
    target: { base_url: 'http://u:secret@h:8000/?key=k', endpoint: '/v1/completions', model: 'm', headers: { Authorization: 'Bearer x' }, api_key_env: 'OPENAI_API_KEY' },
    load: { request_rate: 10, seed: 0, workers: 1, busy_poll: false, preconnect: null },
    workload: { dataset_name: 'random' },
    output: { result_dir: 'results' },
    sim: { hardware: 'h100' },
  };
  const opts = { simulated: false, driver: 'http' };

  it('ignores key order, the run name, output, client mechanics and header values', () => {
    const other = {
      ...spec,
      name: 'b',
      output: { result_dir: 'elsewhere' },
      target: { ...spec.target, headers: { Authorization: 'Bearer y' } },
      load: { preconnect: 8, busy_poll: true, workers: 4, seed: 0, request_rate: 10 },
    };
    expect(specHash(other, opts)).toBe(specHash(spec, opts));
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe('{"a":[2,{"c":2,"d":1}],"b":1}');
  });

  it('changes with the load, the model, and the simulator settings of a simulated target', () => {
    const h = specHash(spec, opts);
    expect(specHash({ ...spec, load: { ...spec.load, request_rate: 11 } }, opts)).not.toBe(h);
    expect(specHash({ ...spec, target: { ...spec.target, model: 'n' } }, opts)).not.toBe(h);
    const sim = { simulated: true, driver: 'http' };
    // The built-in simulator's port is random: it does not count; its hardware does.
    expect(specHash({ ...spec, target: { ...spec.target, base_url: 'http://127.0.0.1:4000' } }, sim)).toBe(
      specHash({ ...spec, target: { ...spec.target, base_url: 'http://127.0.0.1:5000' } }, sim),
    );
    expect(specHash({ ...spec, sim: { hardware: 'a100' } }, sim)).not.toBe(specHash(spec, sim));
  });

  it('a new credential in the URL does not change the hash', () => {
    const withKey = (k: string) => ({ ...spec, target: { ...spec.target, base_url: `http://u:${k}@h:8000/?key=${k}` } });
    expect(specHash(withKey('one'), opts)).toBe(specHash(withKey('two'), opts));
  });
});

describe('history row: SLO verdicts', () => {
  it('passes when every SLO result passes; one failure fails the run; none is null', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tempDir } = await import('../helpers/temp-dir.js');
    const { rowFromRunDir } = await import('../../src/history/history-row.js');
    const results = tempDir('history-slo');
    const row = (slos: unknown) => {
      const dir = join(results, 'r');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'result.json'), JSON.stringify({ schema: 'infermeter.result/1', run: { id: 'r', started_at: '2026-11-30T00:00:00Z' }, target: {}, load: {}, metrics: {}, slos }));
      return rowFromRunDir(results, dir);
    };
    expect(row([{ slo: 'p99(ttft) <= 500ms', pass: true }, { slo: 'p99(tpot) <= 50ms', pass: true }]).slo_pass).toBe(true);
    const failed = row([{ slo: 'p99(ttft) <= 500ms', pass: true }, { slo: 'p99(tpot) <= 50ms', pass: false }]);
    expect(failed.slo_pass).toBe(false);
    expect(JSON.parse(failed.slo!)).toHaveLength(2);
    expect(row(null).slo_pass).toBeNull();
    expect(row(null).slo).toBeNull();
  });
});
