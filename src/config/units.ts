/**
 * Unit parsers shared by flags and config files. Each returns a number in the canonical
 * unit (milliseconds, requests/s) or throws a UnitError whose message states the accepted form.
 */

export class UnitError extends Error {}

const DURATION_UNITS_MS: Record<string, number> = {
  us: 0.001,
  µs: 0.001,
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
};

const DURATION_RE = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(us|µs|ms|s|m|min|h)?\s*$/;

/**
 * A duration such as `500ms`, `10s`, `2m`, `1h`, `1.5s`. A bare number is taken in
 * `bareUnit` (milliseconds for SLO thresholds, as vLLM's --goodput takes them; seconds for --duration).
 */
export function parseDurationMs(input: string | number, bareUnit: 'ms' | 's' = 'ms'): number {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new UnitError(`expected a non-negative duration, got ${input}`);
    return bareUnit === 's' ? input * 1000 : input;
  }
  const m = DURATION_RE.exec(input);
  if (!m) throw new UnitError(`expected a duration like 500ms, 10s, 2m or 1h, got "${input}"`);
  const value = Number(m[1]);
  const unit = m[2] ?? bareUnit;
  return value * DURATION_UNITS_MS[unit]!;
}

/** A rate such as `20`, `20rps`, `20/s`, `1200/m`, or `inf`. Returns requests per second. */
export function parseRate(input: string | number): number {
  if (typeof input === 'number') {
    if (!(input > 0)) throw new UnitError(`expected a positive rate or inf, got ${input}`);
    return input;
  }
  const s = input.trim().toLowerCase();
  if (s === 'inf' || s === 'infinity') return Infinity;
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(rps|\/s|\/m|\/min|rpm)?$/.exec(s);
  if (!m || !(Number(m[1]) > 0)) throw new UnitError(`expected a positive rate like 20, 20rps, 1200/m or inf, got "${input}"`);
  const value = Number(m[1]);
  return m[2] === '/m' || m[2] === '/min' || m[2] === 'rpm' ? value / 60 : value;
}

/**
 * The one share grammar of flags and config files: a number with an optional `%`
 * (`5%` → 0.05, `0.05` → 0.05, `.5` → 0.5). Not range-checked: each caller states its range.
 * Rounded so that 32.8% is 0.328, not 0.32799999999999996.
 */
export function parseShare(input: string | number): number {
  const s = typeof input === 'number' ? String(input) : input.trim();
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/.exec(s);
  if (!m) throw new UnitError(`expected a percentage like 5% or a share like 0.05, got "${input}"`);
  return m[2] ? Number((Number(m[1]) / 100).toPrecision(15)) : Number(m[1]);
}

/** A fraction as `0.05` or a percentage as `5%`; between 0 and 1 inclusive. */
export function parseFraction(input: string | number): number {
  let value = NaN;
  try {
    value = parseShare(input);
  } catch {
    /* reported below, with the range */
  }
  if (!(value >= 0 && value <= 1)) throw new UnitError(`expected a fraction between 0 and 1 (0.05) or a percentage (5%), got "${input}"`);
  return value;
}

/**
 * A count or a duration: `--warmup 20` (requests) or `--warmup 30s` (time).
 * A bare integer is a request count; anything with a unit is a duration.
 */
export function parseCountOrDuration(input: string | number): { requests: number } | { duration_ms: number } {
  if (typeof input === 'number' || /^\s*\d+\s*$/.test(input)) {
    const n = Number(input);
    if (!Number.isInteger(n) || n < 0) throw new UnitError(`expected a request count or a duration like 30s, got "${input}"`);
    return { requests: n };
  }
  try {
    return { duration_ms: parseDurationMs(input, 's') };
  } catch {
    throw new UnitError(`expected a request count (e.g. 20) or a duration (e.g. 30s), got "${input}"`);
  }
}
