/**
 * How the twin's error is written for people: `sim validate`'s per-level table and error bar,
 * `sim calibrate`'s in-sample error bar, and the one line `plan` prints under a plan.
 */
import { loadSimProfile } from '../config/sim-profile.js';
import { VALIDATE_FIGURES, type ValidationSummary } from '../sim/index.js';

const NAMES: Record<string, string> = { ttft_mean: 'TTFT mean', ttft_p90: 'TTFT p90', tpot_mean: 'TPOT mean', tpot_p90: 'TPOT p90', e2e_mean: 'latency mean', output_throughput: 'output tok/s' };
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const val = (f: string, x: number): string => (f === 'output_throughput' ? `${x.toFixed(1)} tok/s` : `${x.toFixed(x >= 100 ? 1 : 2)} ms`);

/** The error bar per figure over the load levels (median and largest |error|). */
export function errorBarLines(v: ValidationSummary): string[] {
  const out = [`error bar over ${v.levels.length} load level(s) (|twin / measured − 1|, median and largest):`];
  for (const f of VALIDATE_FIGURES) {
    const e = v.error_bar[f];
    if (Number.isFinite(e.median_abs_error)) out.push(`  ${NAMES[f]!.padEnd(13)} ${(e.median_abs_error * 100).toFixed(1).padStart(6)}%   max ${(e.max_abs_error * 100).toFixed(1).padStart(6)}%`);
  }
  return out;
}

/** The lines `sim validate` prints: one block per load level, then the error bar per figure. */
export function validationLines(v: ValidationSummary): string[] {
  const out: string[] = [];
  for (const l of v.levels) {
    out.push(`${l.label} (${l.load}, ${l.requests} requests):`);
    for (const f of l.figures) out.push(`  ${NAMES[f.figure]!.padEnd(13)} measured ${val(f.figure, f.measured).padStart(14)}   twin ${val(f.figure, f.simulated).padStart(14)}   error ${pct(f.error).padStart(7)}`);
  }
  out.push(...errorBarLines(v));
  return out;
}

/**
 * The error bar a plan made with `profilePath` carries: the profile's `validation` block (written
 * by `sim validate --sim-profile`), or "unvalidated".
 */
export function twinErrorLine(profilePath: string | null): string {
  const how = 'run `infermeter sim validate RUN_DIR… --sim-profile P` on runs of your server to measure it';
  if (profilePath === null) return `simulator error bar: unvalidated (default parameters; ${how})`;
  const v = loadSimProfile(profilePath).validation;
  if (v === undefined) return `simulator error bar: unvalidated (${profilePath} has no validation; ${how})`;
  const parts = VALIDATE_FIGURES.filter((f) => v.error_bar[f] !== undefined).map((f) => `${NAMES[f]} ±${(v.error_bar[f]!.median_abs_error * 100).toFixed(1)}% (max ${(v.error_bar[f]!.max_abs_error * 100).toFixed(1)}%)`);
  return `simulator error bar (sim validate on ${v.runs.length} run(s), ${v.load_levels.join('; ')}): ${parts.join(', ')}`;
}

