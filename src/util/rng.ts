/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) and the samplers built on it.
 * Deterministic across platforms: only 32-bit integer arithmetic and Math.imul.
 */

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number;
  /**
   * out[int(0, out.length − 1)] += 1, `draws` times: the same draws, and the same stream after,
   * as that many int calls, without a call each (a bootstrap's multinomial counts).
   */
  tally(draws: number, out: Int32Array): void;
  /** Standard normal N(0, 1) (Box–Muller). */
  normal(): number;
  /** A new independent generator derived from this one's stream. */
  fork(): Rng;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Seed may be any finite number; strings are hashed (FNV-1a) so labels can derive sub-seeds. */
export function createRng(seed: number | string): Rng {
  const s = typeof seed === 'string' ? fnv1a(seed) : hashNumber(seed);
  const init = splitmix32(s);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const u32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) u32();
  let spare: number | null = null;
  const rng: Rng = {
    next: () => u32() / 4294967296,
    int: (lo, hi) => lo + Math.floor((u32() / 4294967296) * (hi - lo + 1)),
    tally: (draws, out) => {
      // u32's step, on locals (the state written back once): a bootstrap draws millions. The
      // state is kept as signed 32-bit integers (`| 0`), the same bits as u32's unsigned ones
      // (every step is arithmetic mod 2^32), which V8 keeps in integer registers; only the draw
      // reads t unsigned.
      const n = out.length;
      let sa = a | 0;
      let sb = b | 0;
      let sc = c | 0;
      let sd = d | 0;
      for (let i = 0; i < draws; i++) {
        const t = (sa + sb + sd) | 0;
        sd = (sd + 1) | 0;
        sa = sb ^ (sb >>> 9);
        sb = (sc + (sc << 3)) | 0;
        sc = (sc << 21) | (sc >>> 11);
        sc = (sc + t) | 0;
        out[Math.floor(((t >>> 0) / 4294967296) * n)]! += 1;
      }
      a = sa >>> 0;
      b = sb >>> 0;
      c = sc >>> 0;
      d = sd >>> 0;
    },
    normal: () => {
      if (spare !== null) {
        const v = spare;
        spare = null;
        return v;
      }
      let u = 0;
      while (u === 0) u = u32() / 4294967296;
      const v = u32() / 4294967296;
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    fork: () => createRng(u32() ^ (u32() << 1)),
  };
  return rng;
}

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hashNumber(seed: number): number {
  if (!Number.isFinite(seed)) return 0;
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  return (lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0;
}

/** Fisher–Yates shuffle in place. */
export function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const t = items[i] as T;
    items[i] = items[j] as T;
    items[j] = t;
  }
  return items;
}

/** Exponential with the given mean (inverse CDF). */
export function sampleExponential(rng: Rng, mean: number): number {
  return -Math.log(1 - rng.next()) * mean;
}

/**
 * Gamma(shape k, scale θ) by Marsaglia & Tsang (2000); for k < 1 uses the boost
 * Gamma(k) = Gamma(k+1) · U^(1/k). Mean kθ, variance kθ².
 */
export function sampleGamma(rng: Rng, shape: number, scale: number): number {
  if (shape < 1) {
    const u = rng.next();
    return sampleGamma(rng, shape + 1, scale) * Math.pow(u === 0 ? Number.MIN_VALUE : u, 1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}
