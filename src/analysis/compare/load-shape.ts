/**
 * Was the load the same? `compare` checks this before judging any figure.
 *
 * Three groups of items:
 * - configuration (model, endpoint, simulated hardware and engine settings): what an A/B
 *   comparison usually varies on purpose; differences are listed, never block a verdict;
 * - load shape: the load and workload settings of the comparable projection
 *   (analysis/comparable-spec.ts: dataset identity, arrival process and rate, concurrency, the
 *   request count when one was set, configured duration, warm-up/cool-down, ignore_eos) and the
 *   input and output length distributions; a difference blocks the verdict unless forced;
 * - outcome: what the runs produced or drew (requests sent, seed, prompt salt): shown, never
 *   blocking — two seeds draw different requests from the same distributions, which the length
 *   tests check, and a duration-bound run's request count is its result.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../comparable-spec.js';
import { ksTwoSample, type KsResult } from './ks-test.js';

/** What compare knows of one side's context (result.json sections, or a vLLM file's keys). */
export interface ShapeSource {
  target: Record<string, unknown> | null;
  /** The load settings (comparable-spec.ts loadSettings): no draws, no produced request count. */
  load: Record<string, unknown> | null;
  /** The workload settings (no prompt salt). */
  workload: Record<string, unknown> | null;
  /** Requests the run sent, the seed and the prompt salt; null or absent when unknown. */
  outcome?: { requests: number | null; seed: unknown; prompt_salt: unknown } | null;
  /** Input and output token counts of the measured ok requests; null when unknown. */
  input_lengths: ArrayLike<number> | null;
  output_lengths: ArrayLike<number> | null;
}

export interface ShapeItem {
  what: string;
  group: 'configuration' | 'load' | 'outcome';
  a: string;
  b: string;
  /** null: could not be checked (one side does not say). */
  same: boolean | null;
  ks?: KsResult;
}

/** p-value below which the two length samples are called different. */
export const KS_ALPHA = 0.01;

const LOAD_KEYS = ['mode', 'request_rate', 'arrival', 'burstiness', 'max_concurrency', 'concurrency', 'num_prompts', 'duration_ms', 'warmup', 'cooldown', 'ignore_eos'] as const;

export function shortHash(v: unknown): string {
  return createHash('sha256').update(canonicalJson(v)).digest('hex').slice(0, 12);
}

const show = (v: unknown): string => (v === undefined ? '?' : typeof v === 'string' ? v : canonicalJson(v));

function item(what: string, group: ShapeItem['group'], a: unknown, b: unknown): ShapeItem {
  const known = a !== undefined && b !== undefined;
  return { what, group, a: show(a), b: show(b), same: known ? canonicalJson(a) === canonicalJson(b) : null };
}

function lengthItem(what: string, a: ArrayLike<number> | null, b: ArrayLike<number> | null): ShapeItem {
  const summary = (x: ArrayLike<number>): string => {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i]!;
    return `n=${x.length}, mean ${x.length ? (s / x.length).toFixed(1) : '—'}`;
  };
  if (a === null || b === null) return { what, group: 'load', a: a ? summary(a) : '?', b: b ? summary(b) : '?', same: null };
  const ks = ksTwoSample(a, b);
  if (ks === null) return { what, group: 'load', a: summary(a), b: summary(b), same: a.length === b.length };
  return { what, group: 'load', a: summary(a), b: summary(b), same: ks.p_value >= KS_ALPHA, ks };
}

/** Simulator settings without its per-run statistics. */
function simulatorConfig(target: Record<string, unknown> | null): unknown {
  const sim = target?.simulator;
  if (sim === null || typeof sim !== 'object') return sim === null ? null : undefined;
  const { engine_stats: _stats, ...config } = sim as Record<string, unknown>;
  return config;
}

/** Every item, in the order they are printed. */
export function compareShapes(a: ShapeSource, b: ShapeSource): ShapeItem[] {
  const items: ShapeItem[] = [
    item('model', 'configuration', a.target?.model, b.target?.model),
    item('endpoint', 'configuration', a.target?.endpoint, b.target?.endpoint),
    item('server', 'configuration', a.target ? (a.target.base_url ?? 'built-in simulator') : undefined, b.target ? (b.target.base_url ?? 'built-in simulator') : undefined),
    item('simulated engine', 'configuration', simulatorConfig(a.target), simulatorConfig(b.target)),
    item('dataset (workload sha256)', 'load', a.workload ? shortHash(a.workload) : undefined, b.workload ? shortHash(b.workload) : undefined),
  ];
  const dataset = items[items.length - 1]!;
  if (dataset.same === false && a.workload && b.workload) {
    // Name the fields that differ rather than two opaque hashes.
    const keys = [...new Set([...Object.keys(a.workload), ...Object.keys(b.workload)])].sort();
    for (const k of keys) {
      if (canonicalJson(a.workload[k]) !== canonicalJson(b.workload[k])) items.push(item(`workload.${k}`, 'load', a.workload[k], b.workload[k]));
    }
  }
  items.push(lengthItem('input lengths (KS test)', a.input_lengths, b.input_lengths));
  items.push(lengthItem('output lengths (KS test)', a.output_lengths, b.output_lengths));
  for (const k of LOAD_KEYS) {
    const va = a.load?.[k];
    const vb = b.load?.[k];
    if (va === undefined && vb === undefined) continue;
    items.push(item(`load.${k}`, 'load', va, vb));
  }
  const oa = a.outcome;
  const ob = b.outcome;
  if (oa || ob) {
    items.push(item('requests sent', 'outcome', oa?.requests ?? undefined, ob?.requests ?? undefined));
    items.push(item('seed', 'outcome', oa?.seed ?? undefined, ob?.seed ?? undefined));
    if ((oa?.prompt_salt ?? null) !== null || (ob?.prompt_salt ?? null) !== null) items.push(item('prompt salt', 'outcome', oa?.prompt_salt ?? null, ob?.prompt_salt ?? null));
  }
  return items;
}

/** True when any load-shape item is known to differ. */
export function shapesDiffer(items: readonly ShapeItem[]): boolean {
  return items.some((i) => i.group === 'load' && i.same === false);
}
