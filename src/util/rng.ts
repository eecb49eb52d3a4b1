/**
 * Seeded pseudo-random numbers. sfc32 (Small Fast Counting, 128-bit state) seeded by
 * splitmix32: fast, passes PractRand to 2^40+, and reproducible across platforms because
 * it uses only 32-bit integer arithmetic. Not for cryptography.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRng(seed: number): Rng {
  const init = splitmix32(Math.floor(seed));
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  return {
    next(): number {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) >>> 0;
      return t / 4294967296;
    },
  };
}

/** Exponential with the given mean (inverse CDF). */
export function sampleExponential(rng: Rng, mean: number): number {
  return -Math.log(1 - rng.next()) * mean;
}

/** Standard normal by Box–Muller (one of the pair; simplicity over speed). */
export function sampleStandardNormal(rng: Rng): number {
  let u = rng.next();
  while (u === 0) u = rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
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
      x = sampleStandardNormal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.next();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}
