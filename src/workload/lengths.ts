/**
 * Length distributions (tokens). Every sampler returns a non-negative integer: the draw rounded to
 * the nearest integer, then clipped to [min, max] (normal/lognormal/empirical; a clipped normal is
 * "censored": out-of-range draws land on the bound).
 */
import { MAX_LINE_BYTES, readBounded } from './datasets/read-bounded.js';
import { UserError } from '../errors/user-error.js';
import type { Rng } from '../util/rng.js';
import { createRng } from '../util/rng.js';
import type { LengthDist } from './spec.js';

export type LengthSampler = () => number;

/** vLLM's random range: uniform integers on [⌊X(1−r)⌋, ⌈X(1+r)⌉]. */
export function vllmRange(len: number, ratio: number): LengthDist {
  if (ratio === 0) return { kind: 'fixed', value: len };
  return { kind: 'uniform', min: Math.floor(len * (1 - ratio)), max: Math.ceil(len * (1 + ratio)) };
}

function clip(x: number, min: number | undefined, max: number | undefined): number {
  let v = Math.round(x);
  if (min !== undefined && v < min) v = min;
  if (max !== undefined && v > max) v = max;
  return Math.max(0, v);
}

/**
 * A sampler for `dist`. `empirical` needs its values resolved first (`resolveEmpirical`), or
 * `datasetLengths` when `from_dataset` is set.
 */
export function lengthSampler(dist: LengthDist, streamRng: Rng, datasetLengths?: readonly number[]): LengthSampler {
  const rng = dist.seed !== undefined ? createRng(`length:${dist.seed}`) : streamRng;
  switch (dist.kind) {
    case 'fixed':
      return () => dist.value;
    case 'uniform':
      return () => rng.int(dist.min, dist.max);
    case 'normal':
      return () => clip(dist.mean + dist.std * rng.normal(), dist.min, dist.max);
    case 'lognormal': {
      // Moments of the lengths → parameters of the underlying normal:
      // σ² = ln(1 + std²/mean²), μ = ln(mean) − σ²/2.
      const s2 = Math.log(1 + (dist.std * dist.std) / (dist.mean * dist.mean));
      const mu = Math.log(dist.mean) - s2 / 2;
      const sigma = Math.sqrt(s2);
      return () => clip(Math.exp(mu + sigma * rng.normal()), dist.min, dist.max);
    }
    case 'empirical': {
      const values = dist.values ?? (dist.from_dataset ? datasetLengths : undefined);
      if (!values || values.length === 0) {
        throw new UserError('workload: empirical length distribution has no values (give values, path or from_dataset)');
      }
      return () => clip(values[rng.int(0, values.length - 1)] as number, dist.min, dist.max);
    }
  }
}

/** The largest length `dist` can draw; null when unbounded (normal or lognormal without max). */
export function distMax(dist: LengthDist, datasetLengths?: readonly number[]): number | null {
  switch (dist.kind) {
    case 'fixed':
      return dist.value;
    case 'uniform':
      return dist.max;
    case 'normal':
    case 'lognormal':
      return dist.max ?? null;
    case 'empirical': {
      const v = dist.values ?? (dist.from_dataset ? datasetLengths : undefined);
      if (!v || v.length === 0) return dist.max ?? null;
      const top = v.reduce((a, b) => Math.max(a, b), 0);
      return dist.max !== undefined ? Math.min(top, dist.max) : top;
    }
  }
}

/** The distribution's mean before clipping (for describe()); null when unknown. */
export function nominalMean(dist: LengthDist, datasetLengths?: readonly number[]): number | null {
  switch (dist.kind) {
    case 'fixed':
      return dist.value;
    case 'uniform':
      return (dist.min + dist.max) / 2;
    case 'normal':
    case 'lognormal':
      return dist.mean;
    case 'empirical': {
      const v = dist.values ?? (dist.from_dataset ? datasetLengths : undefined);
      return v && v.length > 0 ? v.reduce((a, b) => a + b, 0) / v.length : null;
    }
  }
}

/**
 * Reads an empirical distribution's file into `values`. Accepted: numbers separated by
 * whitespace or commas (a one-column CSV with an optional header line works too).
 */
export async function resolveEmpirical(dist: LengthDist, field: string): Promise<LengthDist> {
  if (dist.kind !== 'empirical' || dist.values || !dist.path) return dist;
  // A lengths file is read as one string: bounded well below what a string can hold.
  const text = (await readBounded(dist.path, `workload.${field}`, MAX_LINE_BYTES)).toString('utf8');
  const values: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    for (const cell of (lines[i] as string).split(/[\s,]+/)) {
      if (cell === '') continue;
      const n = Number(cell);
      if (!Number.isFinite(n) || n < 0) {
        if (i === 0 && values.length === 0) continue; // header
        throw new UserError(`${dist.path}:${i + 1}: workload.${field}: not a non-negative number: ${JSON.stringify(cell)}`);
      }
      values.push(Math.round(n));
    }
  }
  if (values.length === 0) throw new UserError(`${dist.path}: workload.${field}: no lengths in file`);
  return { ...dist, values };
}
