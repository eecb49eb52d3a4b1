import { describe, expect, it } from 'vitest';
import { findDegradation, findKnee, findSaturation, type CurvePoint } from '../../src/analysis/load-curve.js';

/** Points from parallel arrays: load, throughput (tok/s), p50 and p99 E2EL (ms). */
function curve(load: number[], tput: number[], p50: number[], p99: number[] = p50.map((v) => v * 2), err: number[] = load.map(() => 0)): CurvePoint[] {
  return load.map((l, i) => ({ load: l, throughput: tput[i]!, latency_p50: p50[i]!, latency_p99: p99[i]!, error_rate: err[i]!, slos_pass: null }));
}

const RATES = [1, 2, 3, 4, 5, 6, 7, 8];

describe('saturation', () => {
  it('a hockey stick: throughput flattens at stage 5 (index 4) while latency climbs', () => {
    const c = curve(RATES, [100, 200, 300, 400, 480, 490, 495, 490], [50, 52, 55, 60, 80, 400, 900, 1500]);
    // From index 4 on, every later throughput is ≤ 480·1.05 = 504, and p50 rises 80 → 400 at the next stage.
    // Index 3 (400) does not qualify: 480 > 400·1.05.
    expect(findSaturation(c)).toMatchObject({ index: 4, load: 5 });
  });

  it('flat: neither throughput nor latency move — no saturation, no knee', () => {
    const c = curve(RATES, RATES.map(() => 500), RATES.map(() => 100));
    expect(findSaturation(c)).toBeNull();
    expect(findKnee(c)).toBeNull();
  });

  it('monotone: throughput still rising at the top — not saturated', () => {
    const c = curve(RATES, RATES.map((r) => r * 100), RATES.map((r) => 50 + r * 10));
    expect(findSaturation(c)).toBeNull();
  });

  it('noisy plateau: ±3% wobble after the plateau does not move the saturation point', () => {
    const c = curve(RATES, [100, 200, 300, 400, 500, 515, 490, 510], [50, 52, 55, 60, 70, 300, 250, 900]);
    // 515 and 510 are within 5% of 500 (≤ 525); p50 rises 70 → 300 after index 4.
    expect(findSaturation(c)).toMatchObject({ index: 4 });
  });

  it('needs latency to rise at the next stage: a plateau with flat latency is not saturation', () => {
    const c = curve(RATES, [100, 200, 300, 400, 500, 500, 500, 500], [50, 50, 50, 50, 50, 50, 50, 50]);
    expect(findSaturation(c)).toBeNull();
  });
});

describe('knee (Kneedle on the normalized p99 curve)', () => {
  it('finds the last stage before the steep climb', () => {
    // x_n = (r − 1)/7; y = p99 rises slowly then sharply after load 6.
    const p99 = [100, 105, 110, 118, 130, 150, 600, 1500];
    const c = curve(RATES, RATES.map((r) => r * 100), p99.map((v) => v / 2), p99);
    // d_i = x_n − y_n: at index 5, 5/7 − 50/1400 = 0.679; at 6, 6/7 − 500/1400 = 0.5 → knee at index 5.
    const k = findKnee(c)!;
    expect(k.index).toBe(5);
    expect(k.score).toBeCloseTo(5 / 7 - 50 / 1400, 9);
  });

  it('a straight line has no knee', () => {
    const c = curve(RATES, RATES.map((r) => r * 100), RATES.map((r) => r * 50), RATES.map((r) => r * 100));
    expect(findKnee(c)).toBeNull();
  });

  it('a noisy dip does not make a knee (running maximum)', () => {
    const p99 = [100, 140, 90, 120, 130, 150, 600, 1500];
    const k = findKnee(curve(RATES, RATES.map(() => 1), p99, p99));
    expect(k!.index).toBe(5);
  });

  it('uses a log scale for geometric loads (concurrencies 1, 4, 16, 64, 256)', () => {
    const loads = [1, 4, 16, 64, 256];
    const p99 = [100, 110, 130, 400, 1600];
    // log spacing: x_n = 0, .25, .5, .75, 1; y_n = 0, .0067, .02, .2, 1 → d = 0, .24, .48, .55, 0: knee at index 3.
    const k = findKnee(curve(loads, loads, p99, p99))!;
    expect(k.index).toBe(3);
    expect(k.score).toBeCloseTo(0.75 - 300 / 1500, 9);
  });

  it('ignores the all-at-once stage (no finite load) and needs three stages', () => {
    const c = curve([1, 2, Infinity], [1, 2, 2], [1, 2, 100], [1, 2, 100]);
    expect(findKnee(c)).toBeNull();
  });
});

describe('degradation', () => {
  it('is the first stage with an error rate above 1% or a failed SLO', () => {
    const c = curve(RATES, RATES, RATES, RATES, [0, 0, 0.005, 0.02, 0.5, 0, 0, 0]);
    expect(findDegradation(c)).toMatchObject({ index: 3, reason: 'error rate 2% > 1%' });
    const slo = c.map((p, i) => ({ ...p, error_rate: 0, slos_pass: i < 2 }));
    expect(findDegradation(slo)).toMatchObject({ index: 2, reason: 'an SLO failed' });
    expect(findDegradation(curve(RATES, RATES, RATES))).toBeNull();
  });
});

describe('knee and degradation at their boundaries', () => {
  it('steps of ×1.5 are geometric: the knee is found on the log scale', () => {
    // loads 1.5^i; p99 100, 150, 150, 520, 1500. Normalized y = (p99 − 100) / 1400 = 0, .036, .036, .3, 1.
    // Log x = i/4: d = 0, .214, .464, .45, 0 → index 2. A linear x ((l − 1)/4.0625 = 0, .123, .308,
    // .585, 1) would give d = 0, .087, .272, .285, 0 → index 3.
    const loads = [1, 1.5, 2.25, 3.375, 5.0625];
    const knee = findKnee(curve(loads, loads, [0, 0, 0, 0, 0], [100, 150, 150, 520, 1500]));
    expect(knee).toMatchObject({ index: 2, load: 2.25 });
    expect(knee!.score).toBeCloseTo(0.5 - 50 / 1400, 9);
    expect(knee!.reason).toContain('log-normalized');
  });

  it('a dip in p99 does not become the knee (the curve is made non-decreasing first)', () => {
    // p99 100, 200, 800, 150 (a dip), 900, 1500 → running max 100, 200, 800, 800, 900, 1500.
    // x = 0, .2, .4, .6, .8, 1; y = 0, .071, .5, .5, .571, 1 → d peaks at index 4 (.229).
    // Taken as measured, the dip would give index 3 (d = .6 − .036 = .564).
    const loads = [1, 2, 3, 4, 5, 6];
    const knee = findKnee(curve(loads, loads, [0, 0, 0, 0, 0, 0], [100, 200, 800, 150, 900, 1500]));
    expect(knee).toMatchObject({ index: 4, load: 5 });
    expect(knee!.score).toBeCloseTo(0.8 - 800 / 1400, 9);
  });

  it('an error rate of exactly 1% is not degradation; just above it is', () => {
    const c = curve([1, 2, 3], [1, 2, 3], [1, 1, 1], [2, 2, 2], [0, 0.01, 0.01]);
    expect(findDegradation(c)).toBeNull();
    expect(findDegradation(curve([1, 2, 3], [1, 2, 3], [1, 1, 1], [2, 2, 2], [0, 0.01, 0.0101]))).toMatchObject({ index: 2 });
  });
});
