/**
 * What varies between the stages of a sweep: the load alone. A stage is an open-loop request
 * rate (Infinity: all at once) or a closed-loop concurrency; workload, seed and everything else
 * are the same for every stage.
 */
import { UserError } from '../errors/user-error.js';
import { parseRate, UnitError } from '../config/units.js';

export type StageLoad = { kind: 'rate'; rate: number } | { kind: 'concurrency'; concurrency: number };

/**
 * Why a stage ran: `list` (given by --request-rates / --concurrencies), `baseline`
 * (synchronous: concurrency 1), `probe` (max throughput: rate inf), `auto` (a rate between the
 * two), `search` (a probe of --search), `confirm` (--search's re-run of its answer, or of a
 * lower load after a failed one).
 */
export type StageRole = 'list' | 'baseline' | 'probe' | 'auto' | 'search' | 'confirm';

/** The load as one number: req/s (Infinity for inf) or the concurrency. */
export function loadValue(l: StageLoad): number {
  return l.kind === 'rate' ? l.rate : l.concurrency;
}

/** A stage's load as sweep.json holds it: JSON has no Infinity, so an all-at-once rate is "inf". */
export type StageLoadJson = { kind: 'rate'; rate: number | 'inf' } | { kind: 'concurrency'; concurrency: number };

export function toJsonLoad(l: StageLoad): StageLoadJson {
  return l.kind === 'rate' && !Number.isFinite(l.rate) ? { kind: 'rate', rate: 'inf' } : l;
}

/** `4 req/s`, `inf`, `c=16`. */
export function formatLoad(l: StageLoad | StageLoadJson): string {
  if (l.kind === 'concurrency') return `c=${l.concurrency}`;
  return typeof l.rate === 'number' && Number.isFinite(l.rate) ? `${Number(l.rate.toPrecision(4))} req/s` : 'inf';
}

/** `1,2,4,8,inf` → rates; one line naming the flag when empty, malformed or not increasing. */
export function parseRateList(text: string, flag = '--request-rates'): StageLoad[] {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new UserError(`${flag}: give at least one rate, e.g. 1,2,4,8,inf`);
  const rates = parts.map((p) => {
    try {
      return parseRate(p);
    } catch (err) {
      throw new UserError(`${flag}: ${err instanceof UnitError ? err.message : String(err)}`);
    }
  });
  increasing(rates, flag, (v) => (Number.isFinite(v) ? String(v) : 'inf'));
  return rates.map((rate) => ({ kind: 'rate', rate }));
}

/** `1,4,16,64` → concurrencies (positive integers, increasing). */
export function parseConcurrencyList(text: string, flag = '--concurrencies'): StageLoad[] {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new UserError(`${flag}: give at least one concurrency, e.g. 1,4,16,64,256`);
  const values = parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || !Number.isInteger(n) || n < 1) throw new UserError(`${flag}: expected positive integers such as 1,4,16,64, got "${p}"`);
    return n;
  });
  increasing(values, flag, String);
  return values.map((concurrency) => ({ kind: 'concurrency', concurrency }));
}

function increasing(values: readonly number[], flag: string, show: (v: number) => string): void {
  for (let i = 1; i < values.length; i++) {
    if (!(values[i]! > values[i - 1]!)) {
      throw new UserError(`${flag}: stages must increase, but ${show(values[i]!)} follows ${show(values[i - 1]!)}`);
    }
  }
}

/**
 * --auto N: the rates between a synchronous baseline (throughput b req/s at concurrency 1) and
 * a max-throughput probe (t req/s at rate inf): N rates evenly spaced over (b, t], i.e.
 * b + (t − b)·k/N for k = 1..N, so the last one offers exactly what the probe achieved and the
 * curve reaches saturation. When the probe is no faster than the baseline (a server that
 * serializes requests), the N rates span 0.5·b to 1.5·b instead, around the only capacity known.
 * Rates keep 4 significant digits.
 */
export function autoRates(baseline: number, probe: number, n: number): number[] {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`auto sweep: N must be a positive integer, got ${n}`);
  if (!(baseline > 0)) throw new RangeError('auto sweep: the baseline completed no request');
  const [lo, hi] = probe > baseline * 1.001 ? [baseline, probe] : [baseline * 0.5, baseline * 1.5];
  const first = probe > baseline * 1.001 ? 1 : 0;
  const steps = probe > baseline * 1.001 ? n : Math.max(1, n - 1);
  const out: number[] = [];
  for (let k = first; k < first + n; k++) out.push(Number((lo + ((hi - lo) * k) / steps).toPrecision(4)));
  return out;
}

/** What decides whether stages share prompts: the dataset and its shared-prefix settings. */
export interface StageWorkload {
  dataset_name: string;
  random_prefix_len?: number;
  prompt_salt: string | null;
  tasks?: ReadonlyArray<{ dataset_name?: string | null | undefined; random_prefix_len?: number | null | undefined }> | null;
}

/**
 * The prompt salt of stage `index`: its own (`<sweep salt>-<index>`), so a server's prefix or
 * prompt cache cannot serve a stage from an earlier stage's prompts — the same length
 * distributions, other words. Kept as the sweep's when the user asked for shared prefixes (the
 * prefix dataset, --random-prefix-len), whose point is that requests share them, and when there
 * is no salt (virtual time; `--prompt-salt ""`).
 */
export function stagePromptSalt(w: StageWorkload, index: number): string | null {
  if (w.prompt_salt === null || w.prompt_salt === '') return w.prompt_salt;
  const parts = w.tasks && w.tasks.length > 0 ? w.tasks.map((t) => ({ dataset_name: t.dataset_name ?? w.dataset_name, random_prefix_len: t.random_prefix_len ?? w.random_prefix_len ?? 0 })) : [w];
  const shared = parts.some((p) => p.dataset_name === 'prefix' || (p.random_prefix_len ?? 0) > 0);
  return shared ? w.prompt_salt : `${w.prompt_salt}-${index}`;
}
