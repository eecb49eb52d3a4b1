/**
 * Numbers as the report shows them: always with their unit, rounded to what the measurement
 * can say (no float noise such as 5.6000000000000005e-8), never in exponent notation.
 */
import type { ObjectiveUnit } from '../config/slo.js';

/** 3 significant digits below 100, whole numbers above ("0.104", "98.1", "1234"). */
export function roundForDisplay(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 100) return Math.round(v).toString();
  if (a < 0.001) return v.toFixed(6).replace(/0+$/, '').replace(/\.$/, '') || '0';
  return String(Number(v.toPrecision(3)));
}

/** A value in an objective's unit: "612 ms", "1.2 %", "1234 tok/s", "3.50 req/s", "7 requests". */
export function formatInUnit(v: number | null | undefined, unit: ObjectiveUnit | undefined): string {
  if (v === null || v === undefined) return '—';
  if (unit === undefined) return roundForDisplay(v);
  switch (unit) {
    case 'ms':
      return `${roundForDisplay(v)} ms`;
    case 'ratio':
      return `${roundForDisplay(v * 100)} %`;
    case 'requests':
      return `${roundForDisplay(v)} request${v === 1 ? '' : 's'}`;
    default:
      return `${roundForDisplay(v)} ${unit}`;
  }
}

/** A count with its noun, singular for one ("1 run", "3 runs"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
