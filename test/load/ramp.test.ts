/**
 * Ramps (src/load/ramp.ts): hand-computed schedules, the inverse clock against a numerical
 * oracle (integrate the piecewise-linear rate, bisect for the time it reaches a count), and
 * closed-loop user windows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalTimes } from '../../src/load/arrivals.js';
import { phaseOf, phaseBoundsProblem, type PhaseBounds } from '../../src/load/phases.js';
import { rampedTime, rampedTimes, rampedWork, rampProblem, userWindow, type Ramp } from '../../src/load/ramp.js';

/** λ(t)/λ, the ramped rate as a share of the target, straight from its definition. */
function rateShare(r: Ramp, t: number): number {
  if (t < r.up_ms) return t / r.up_ms;
  if (r.end_ms !== null && r.down_ms > 0 && t >= r.end_ms - r.down_ms) return Math.max(0, (r.end_ms - t) / r.down_ms);
  return 1;
}

/**
 * Oracle: ∫₀ᵗ λ(u)/λ du by the midpoint rule on each piece between the rate's kinks (U and E − D),
 * so no cell straddles a kink: the rule's own error then stays far below the tolerance even for
 * a ramp of a few µs (a cell across a kink erred by up to half a cell, which a random ramp found).
 */
function integrate(r: Ramp, t: number, steps = 20_000): number {
  const kinks = [r.up_ms, ...(r.end_ms !== null && r.down_ms > 0 ? [r.end_ms - r.down_ms] : [])].filter((k) => k > 0 && k < t);
  const bounds = [0, ...kinks.sort((a, b) => a - b), t];
  let sum = 0;
  for (let p = 0; p + 1 < bounds.length; p++) {
    const a = bounds[p]!;
    const h = (bounds[p + 1]! - a) / steps;
    for (let i = 0; i < steps; i++) sum += rateShare(r, a + (i + 0.5) * h) * h;
  }
  return sum;
}

function oracleTime(r: Ramp, s: number): number {
  let lo = 0;
  let hi = r.end_ms ?? 10 * (s + r.up_ms + 1);
  if (integrate(r, hi) < s) return Infinity;
  for (let k = 0; k < 50; k++) {
    const mid = (lo + hi) / 2;
    if (integrate(r, mid, 2000) < s) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function take(it: Iterator<number>, n: number): number[] {
  const out: number[] = [];
  for (let r = it.next(); !r.done && out.length < n; r = it.next()) out.push(r.value);
  return out;
}

describe('ramp: open-loop schedule', () => {
  it('constant 10 req/s ramped up over 1 s: the k-th request when the integrated rate reaches k (hand-computed)', () => {
    // s_k = 100·k ms; during the ramp t = √(2·U·s) = √(2000·100·k): 0, 447.21, 632.46, 774.60, 894.43;
    // from s = U/2 = 500 on, t = s + 500: 1000, 1100, …
    const ramp: Ramp = { up_ms: 1000, down_ms: 0, end_ms: null };
    const t = take(rampedTimes(arrivalTimes({ kind: 'constant', rate: 10, burstiness: 1, seed: 0 }), ramp), 7);
    const want = [0, Math.sqrt(200_000), Math.sqrt(400_000), Math.sqrt(600_000), Math.sqrt(800_000), 1000, 1100];
    t.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 9));
  });

  it('ramp-down: 10 req/s for a 3 s run with 1 s up and 1 s down sends 20 requests, the last ones spreading out', () => {
    // W(E) = E − U/2 − D/2 = 2000 ms of constant-rate time: s = 0, 100, …, 1900 → 20 arrivals.
    // Ramp-down starts at 2000 ms (s = 1500); s = 1600: x − x²/2000 = 100 → x = 1000·(1 − √0.8) = 105.57 ms.
    const ramp: Ramp = { up_ms: 1000, down_ms: 1000, end_ms: 3000 };
    const t = take(rampedTimes(arrivalTimes({ kind: 'constant', rate: 10, burstiness: 1, seed: 0 }), ramp), 100);
    expect(t).toHaveLength(20);
    expect(t[15]).toBeCloseTo(2000, 9);
    expect(t[16]).toBeCloseTo(2000 + 1000 * (1 - Math.sqrt(0.8)), 9);
    expect(t[19]).toBeLessThan(3000);
    // gaps grow through the ramp-down
    for (let i = 17; i < 20; i++) expect(t[i]! - t[i - 1]!).toBeGreaterThan(t[i - 1]! - t[i - 2]!);
  });

  const rampArb = fc
    .record({ up: fc.double({ min: 0, max: 5000, noNaN: true }), down: fc.double({ min: 0, max: 5000, noNaN: true }), steady: fc.double({ min: 1, max: 5000, noNaN: true }) })
    .map(({ up, down, steady }): Ramp => ({ up_ms: up, down_ms: down, end_ms: up + down + steady }));

  it('W⁻¹ agrees with the numerically integrated rate (oracle)', () => {
    fc.assert(
      fc.property(rampArb, fc.double({ min: 0, max: 1, noNaN: true }), (r, frac) => {
        const total = r.end_ms! - r.up_ms / 2 - r.down_ms / 2;
        const s = frac * total * 0.999;
        const t = rampedTime(r, s);
        expect(Math.abs(t - oracleTime(r, s))).toBeLessThan(0.5 + 1e-3 * r.end_ms!);
      }),
      { numRuns: 60, examples: [[{ up_ms: 0.053050013103557836, down_ms: 301.2792968762058, end_ms: 302.33234688930935 }, 0.9999999999999981]] },
    );
  });

  it('W(W⁻¹(s)) = s, W⁻¹ is non-decreasing, and nothing exists past the end', () => {
    fc.assert(
      fc.property(rampArb, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 30 }), (r, fracs) => {
        const total = r.end_ms! - r.up_ms / 2 - r.down_ms / 2;
        const ss = fracs.map((f) => f * total * 0.9999).sort((a, b) => a - b);
        let prev = -Infinity;
        for (const s of ss) {
          const t = rampedTime(r, s);
          expect(t).toBeGreaterThanOrEqual(prev);
          expect(t).toBeLessThanOrEqual(r.end_ms!);
          expect(Math.abs(rampedWork(r, t) - s)).toBeLessThan(1e-6 * (1 + total));
          prev = t;
        }
        // with a ramp-down the schedule ends at E; without one, the run's --duration cuts it
        if (r.down_ms > 0) expect(rampedTime(r, total + 1e-6 * total + 1e-9)).toBe(Infinity);
      }),
      { numRuns: 200 },
    );
  });

  it('a constant schedule has exactly ⌊λ·W(t)⌋ + 1 arrivals in [0, t] (the count tracks the integrated rate)', () => {
    fc.assert(
      fc.property(rampArb, fc.integer({ min: 1, max: 50 }), fc.double({ min: 0, max: 1, noNaN: true }), (r, rate, frac) => {
        const t = frac * r.end_ms!;
        const times = take(rampedTimes(arrivalTimes({ kind: 'constant', rate, burstiness: 1, seed: 0 }), r), 1e6);
        const count = times.filter((x) => x <= t).length;
        const expected = Math.floor((rate * rampedWork(r, t)) / 1000 + 1e-9) + 1;
        expect(Math.abs(count - expected)).toBeLessThanOrEqual(1); // ±1 for float ties at the boundary
      }),
      { numRuns: 100 },
    );
  });

  it('poisson through the ramp keeps its seed and puts ¼ of the ramp-up arrivals in its first half', () => {
    const ramp: Ramp = { up_ms: 100_000, down_ms: 0, end_ms: null };
    const a = take(rampedTimes(arrivalTimes({ kind: 'poisson', rate: 200, burstiness: 1, seed: 5 }), ramp), 40_000);
    const b = take(rampedTimes(arrivalTimes({ kind: 'poisson', rate: 200, burstiness: 1, seed: 5 }), ramp), 40_000);
    expect(a).toEqual(b);
    // Expected in [0, U): λU/2 = 10,000; in [0, U/2): λU/8 = 2,500 (Poisson: sd 50 and 100).
    const firstHalf = a.filter((t) => t < 50_000).length;
    const ramp1 = a.filter((t) => t < 100_000).length;
    expect(Math.abs(firstHalf - 2500)).toBeLessThan(300);
    expect(Math.abs(ramp1 - 10_000)).toBeLessThan(500);
  });
});

describe('ramp: closed-loop users', () => {
  it('user k of N starts at U·k/N and stops at E − D·k/N (hand-computed)', () => {
    const r: Ramp = { up_ms: 1000, down_ms: 2000, end_ms: 10_000 };
    const w = [0, 1, 2, 3].map((k) => userWindow(r, k, 4));
    expect(w.map((x) => x.start_ms)).toEqual([0, 250, 500, 750]);
    expect(w.map((x) => x.stop_ms)).toEqual([10_000, 9500, 9000, 8500]);
    expect(userWindow({ up_ms: 0, down_ms: 0, end_ms: null }, 3, 4)).toEqual({ start_ms: 0, stop_ms: Infinity });
  });

  it('the number of active users is ⌈N·t/U⌉ in the ramp-up and ⌈N·(E − t)/D⌉ in the ramp-down', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, U, D, f) => {
        const r: Ramp = { up_ms: U, down_ms: D, end_ms: U + D + 1000 };
        const active = (t: number) => Array.from({ length: n }, (_, k) => userWindow(r, k, n)).filter((w) => w.start_ms <= t && t < w.stop_ms).length;
        const tu = f * U;
        expect(active(tu)).toBe(Math.max(1, Math.ceil((n * tu) / U - 1e-9)));
        const td = r.end_ms! - D + f * D * 0.999;
        expect(active(td)).toBe(Math.ceil((n * (r.end_ms! - td)) / D - 1e-9));
      }),
    );
  });
});

describe('ramp: phases and problems', () => {
  it('ramp_up, warm-up after it, measure, cool-down before the ramp-down, ramp_down', () => {
    const plan: PhaseBounds = {
      warmup: { duration_ms: 1000 },
      cooldown: { duration_ms: 500 },
      totalRequests: null,
      durationMs: 10_000,
      ramp: { up_ms: 2000, down_ms: 3000, end_ms: 10_000 },
    };
    const at = (t: number) => phaseOf(plan, 0, t);
    expect([at(0), at(1999), at(2000), at(2999), at(3000), at(6499), at(6500), at(6999), at(7000), at(9999)]).toEqual([
      'ramp_up', 'ramp_up', 'warmup', 'warmup', 'measure', 'measure', 'cooldown', 'cooldown', 'ramp_down', 'ramp_down',
    ]);
  });

  it('says why a ramp cannot apply', () => {
    const open = { rate: 10, closed: false, trace: false };
    expect(rampProblem({ up_ms: 1000, down_ms: 0, end_ms: null }, open)).toBeNull();
    expect(rampProblem({ up_ms: 0, down_ms: 0, end_ms: null }, { ...open, rate: Infinity })).toBeNull();
    expect(rampProblem({ up_ms: 1000, down_ms: 0, end_ms: null }, { ...open, rate: Infinity })).toMatch(/finite --request-rate/);
    expect(rampProblem({ up_ms: 1000, down_ms: 0, end_ms: null }, { ...open, rate: Infinity, closed: true })).toBeNull();
    expect(rampProblem({ up_ms: 0, down_ms: 1000, end_ms: null }, open)).toMatch(/--ramp-down needs --duration/);
    expect(rampProblem({ up_ms: 1000, down_ms: 1000, end_ms: 2000 }, open)).toMatch(/leave nothing/);
    expect(rampProblem({ up_ms: 1000, down_ms: 0, end_ms: null }, { ...open, trace: true })).toMatch(/trace/);
    const base = { cooldown: { requests: 0 }, totalRequests: 100, durationMs: null };
    expect(phaseBoundsProblem({ ...base, warmup: { requests: 5 }, ramp: { up_ms: 1000, down_ms: 0, end_ms: null } })).toMatch(/as a duration/);
    expect(phaseBoundsProblem({ ...base, warmup: { requests: 0 }, ramp: { up_ms: 1000, down_ms: 0, end_ms: null } })).toBeNull();
    expect(
      phaseBoundsProblem({ warmup: { duration_ms: 3000 }, cooldown: { requests: 0 }, totalRequests: null, durationMs: 10_000, ramp: { up_ms: 4000, down_ms: 3000, end_ms: 10_000 } }),
    ).toMatch(/leave nothing/);
  });
});
