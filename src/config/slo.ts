/**
 * The SLO vocabulary: the one place that says what an SLO is and how it is written.
 *
 * Two kinds:
 * - Per-request SLOs (`--goodput ttft:500`): a request is *good* when its value is ≤ the
 *   threshold; they feed goodput (vLLM's `--goodput`). `GoodputSlo`, `parseGoodputSlo`.
 * - Objectives (`--slo 'p99(ttft) <= 500ms over 5m >= 99.9%'`): five parts — metric,
 *   statistic (percentile), threshold, window, attainment. The run passes an objective when
 *   the share of windows in which `statistic(metric) op threshold` holds is ≥ the attainment
 *   target. `Objective`, `parseObjective`. Evaluated in src/metrics/objectives.ts.
 *
 * Which metrics an objective may name is not listed here: it comes from the metric registry
 * (src/metrics/objective-catalog.ts builds the `ObjectiveCatalog` the parser takes), so a metric
 * registered there is usable in an SLO without touching this file.
 */
import { z } from 'zod';
import { parseDurationMs, parseShare, UnitError } from './units.js';

// ---------------------------------------------------------------------------------------------
// Per-request SLOs (goodput)

/** Per-request latency metrics a goodput SLO may bound (registry ids, all in ms). */
export const GOODPUT_METRICS = [
  'ttft_ms',
  'tpot_ms',
  'itl_ms',
  'e2el_ms',
  'ttft_from_schedule_ms',
  'e2el_from_schedule_ms',
] as const;
export type GoodputMetric = (typeof GOODPUT_METRICS)[number];

/** A per-request SLO: the request's value must be ≤ threshold_ms for it to be good. */
export interface GoodputSlo {
  metric: GoodputMetric;
  threshold_ms: number;
}

/** The goodput metric a user-facing name denotes (`ttft`, `ttft_ms`, …); null if none. */
export function goodputMetricFromName(name: string): GoodputMetric | null {
  const id = name.endsWith('_ms') ? name : `${name}_ms`;
  return (GOODPUT_METRICS as readonly string[]).includes(id) ? (id as GoodputMetric) : null;
}

/**
 * `ttft:500`, `tpot:50ms`, `e2el:10s` → per-request SLO. Bare numbers are milliseconds (as
 * vLLM's --goodput takes them). Metric names may omit the `_ms` suffix.
 */
export function parseGoodputSlo(text: string): GoodputSlo {
  const idx = text.indexOf(':');
  if (idx <= 0) throw new UnitError(`expected METRIC:THRESHOLD such as ttft:500 or e2el:10s, got "${text}"`);
  const name = text.slice(0, idx).trim().toLowerCase();
  const metric = goodputMetricFromName(name);
  if (metric === null) {
    throw new UnitError(`unknown SLO metric "${name}" in "${text}"; use one of ${GOODPUT_METRICS.map((m) => m.replace(/_ms$/, '')).join(', ')}`);
  }
  return { metric, threshold_ms: parseDurationMs(text.slice(idx + 1), 'ms') };
}

// ---------------------------------------------------------------------------------------------
// Objectives (five parts)

/** Units an objective's metric can have (the registry's units). */
export type ObjectiveUnit = 'ms' | 'ratio' | 'tok/s' | 'req/s' | 'requests';

/** What the parser needs to know of one metric. */
export interface ObjectiveMetricInfo {
  /** Registry id, e.g. `ttft_ms`, `error_rate`. */
  id: string;
  /** The name written in an SLO, e.g. `ttft`, `error_rate`. */
  name: string;
  /** distribution: one value per request (needs a statistic, e.g. p95); run: one value per window. */
  kind: 'distribution' | 'run';
  unit: ObjectiveUnit;
}

/** The metrics an objective may name, by every accepted spelling (name and id). */
export type ObjectiveCatalog = ReadonlyMap<string, ObjectiveMetricInfo>;

export type Comparison = '<' | '<=' | '>' | '>=';

/** The statistic of a distribution metric over a window: a percentile, the mean or the max. */
export type Statistic = { kind: 'percentile'; p: number } | { kind: 'mean' } | { kind: 'max' };

export interface Objective {
  /** Canonical text, e.g. `p99(ttft) <= 500ms over 5m >= 99.9%`: how reports name it. */
  text: string;
  /** Registry id. */
  metric: string;
  unit: ObjectiveUnit;
  /** null for run metrics (one value per window). */
  statistic: Statistic | null;
  op: Comparison;
  /** In the metric's unit: ms, a ratio in [0, 1], tok/s, req/s or a count. */
  threshold: number;
  /** Tumbling window length; null: the whole measured phase is one window. */
  window_ms: number | null;
  /** Share of windows that must meet the objective, in (0, 1]; 1 without `>= N%`. */
  attainment: number;
}

const OPS: Record<string, Comparison> = { '<': '<', '<=': '<=', '≤': '<=', '>': '>', '>=': '>=', '≥': '>=' };

const SYNTAX = `STAT(METRIC) OP THRESHOLD [over WINDOW [>= ATTAINMENT%]], e.g. 'p95(ttft) < 1.5s', 'error_rate < 0.1%', 'p99(ttft) <= 500ms over 5m >= 99.9%'`;

/** Names of a catalog's metrics in its (the registry's) order, for error messages. */
export function objectiveMetricNames(catalog: ObjectiveCatalog): string[] {
  return [...new Set([...catalog.values()].map((m) => m.name))];
}

function parseStatistic(s: string): Statistic {
  const lower = s.toLowerCase();
  if (lower === 'mean' || lower === 'avg') return { kind: 'mean' };
  if (lower === 'max') return { kind: 'max' };
  if (lower === 'median') return { kind: 'percentile', p: 50 };
  const m = /^p(\d+(?:\.\d+)?)$/.exec(lower);
  if (m) {
    const p = Number(m[1]);
    if (p > 0 && p <= 100) return { kind: 'percentile', p };
  }
  throw new UnitError(`unknown statistic "${s}"; expected p50, p90, p95, p99, p99.9 (any pNN), mean or max`);
}

function formatStatistic(s: Statistic): string {
  return s.kind === 'percentile' ? `p${s.p}` : s.kind;
}

/** A share (config/units.ts's grammar) of at most 100%: `0.1%` → 0.001, `0.001` → 0.001. */
function shareOf(s: string, what: string): number {
  let v: number;
  try {
    v = parseShare(s);
  } catch {
    throw new UnitError(`${what}: expected a share like 0.1% or 0.001, got "${s}"`);
  }
  if (v > 1) throw new UnitError(`${what}: a share is at most 100%, got "${s}"`);
  return v;
}

function parseThreshold(s: string, info: ObjectiveMetricInfo): number {
  const t = s.trim();
  switch (info.unit) {
    case 'ms':
      try {
        return parseDurationMs(t, 'ms');
      } catch {
        throw new UnitError(`threshold "${t}": ${info.name} is a duration; write e.g. 500ms or 1.5s (bare numbers: ms)`);
      }
    case 'ratio':
      return shareOf(t, `threshold of ${info.name}`);
    case 'tok/s':
    case 'req/s':
    case 'requests': {
      const suffix = info.unit === 'tok/s' ? '(?:tok/s|tokens/s)' : info.unit === 'req/s' ? '(?:req/s|rps|/s)' : '(?:requests)';
      const m = new RegExp(`^(\\d+(?:\\.\\d+)?|\\.\\d+)\\s*${suffix}?$`).exec(t);
      if (!m) throw new UnitError(`threshold "${t}": ${info.name} is in ${info.unit}; write a number, e.g. 1000${info.unit === 'requests' ? '' : ` or 1000${info.unit}`}`);
      return Number(m[1]);
    }
  }
}

function formatThreshold(v: number, unit: ObjectiveUnit): string {
  switch (unit) {
    case 'ms':
      return formatMs(v);
    case 'ratio':
      return `${Number((v * 100).toPrecision(10))}%`;
    case 'requests':
      return String(v);
    default:
      return `${v}${unit}`;
  }
}

/** Milliseconds in the largest unit that keeps them short and exact: 1h, 5m, 1.5s, 80ms. */
function formatMs(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 100 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The canonical text of an objective (what reports print and what parses back to it). */
export function formatObjective(o: Omit<Objective, 'text'>, name: string): string {
  const lhs = o.statistic === null ? name : `${formatStatistic(o.statistic)}(${name})`;
  let text = `${lhs} ${o.op} ${formatThreshold(o.threshold, o.unit)}`;
  if (o.window_ms !== null) text += ` over ${formatMs(o.window_ms)}`;
  if (o.attainment < 1) text += ` >= ${Number((o.attainment * 100).toPrecision(10))}%`;
  return text;
}

/**
 * Parses an objective as SRE docs write it. Every error names the part that is wrong.
 *
 *   p95(ttft) < 1.5s                      whole measured phase as one window
 *   error_rate < 0.1%                     a run metric: no statistic
 *   p99(ttft) <= 500ms over 5m >= 99.9%   5-minute tumbling windows, 99.9% of them must meet it
 *
 * @throws UnitError with a one-line message
 */
export function parseObjective(input: string, catalog: ObjectiveCatalog): Objective {
  const text = input.trim();
  const fail = (why: string): never => {
    throw new UnitError(`"${text}": ${why}`);
  };
  try {
    const m = /^(.+?)\s*(<=|>=|≤|≥|<|>)\s*(.*)$/.exec(text);
    if (!m) return fail(`no comparison (<, <=, >, >=); expected ${SYNTAX}`);
    const [, lhs, opText, rest] = m as unknown as [string, string, string, string];
    const op = OPS[opText]!;

    // Left side: STAT(METRIC) or METRIC.
    const call = /^([A-Za-z][\w.]*)\s*\(\s*([\w.]+)\s*\)$/.exec(lhs.trim());
    const bare = /^[A-Za-z][\w]*$/.exec(lhs.trim());
    if (!call && !bare) return fail(`cannot read "${lhs}"; expected a metric, or a statistic of one such as p95(ttft)`);
    const name = (call ? call[2]! : lhs.trim()).toLowerCase();
    const info = catalog.get(name);
    if (!info) return fail(`unknown metric "${name}"; expected one of ${objectiveMetricNames(catalog).join(', ')}`);
    let statistic: Statistic | null = null;
    if (call) {
      statistic = parseStatistic(call[1]!);
      if (info.kind === 'run') return fail(`${info.name} is one value per window, not a distribution; drop "${call[1]}(…)", e.g. '${info.name} ${op} …'`);
    } else if (info.kind === 'distribution') {
      return fail(`${info.name} has one value per request; name a statistic, e.g. p95(${info.name}) or mean(${info.name})`);
    }

    // Right side: THRESHOLD [over WINDOW [>= ATTAINMENT]].
    const parts = rest.split(/\s+over\s+/i);
    if (parts.length > 2) return fail('"over" appears twice');
    const thresholdText = parts[0]!.trim();
    if (thresholdText === '') return fail('no threshold after the comparison');
    if (/(>=|≥|<=|≤|<|>)/.test(thresholdText)) return fail(`an attainment target needs a window: '… over 5m >= 99.9%'`);
    const threshold = parseThreshold(thresholdText, info);

    let windowMs: number | null = null;
    let attainment = 1;
    if (parts.length === 2) {
      const w = /^(\S+)\s*(?:(>=|≥)\s*(.+))?$/.exec(parts[1]!.trim());
      if (!w) return fail(`cannot read the window and attainment "${parts[1]}"; expected e.g. 'over 5m >= 99.9%'`);
      try {
        windowMs = parseDurationMs(w[1]!, 's');
      } catch {
        return fail(`window "${w[1]}": expected a duration such as 30s, 5m or 1h`);
      }
      if (!(windowMs > 0)) return fail(`window "${w[1]}": must be longer than 0`);
      if (w[3] !== undefined) {
        attainment = shareOf(w[3], 'attainment');
        if (!(attainment > 0)) return fail(`attainment "${w[3]}": must be above 0%`);
      }
    }
    const o = { metric: info.id, unit: info.unit, statistic, op, threshold, window_ms: windowMs, attainment };
    return { text: formatObjective(o, info.name), ...o };
  } catch (err) {
    if (err instanceof UnitError && !err.message.startsWith(`"${text}"`)) throw new UnitError(`"${text}": ${err.message}`);
    throw err;
  }
}

/**
 * The spec file's `slos:` list (and `--slo`): each entry a string in the syntax above, or an
 * object whose fields are its parts (`{metric: ttft, statistic: p95, op: "<", threshold: 1.5s,
 * window: 5m, attainment: 99.9%}`), which is read as the same text.
 */
export function objectiveListSchema(catalog: ObjectiveCatalog) {
  const names = objectiveMetricNames(catalog);
  const objectForm = z
    .object({
      metric: z.string().describe(`one of ${names.join(', ')}`),
      statistic: z.string().optional().describe('distribution metrics: p50, p90, p95, p99, p99.9 (any pNN), mean or max'),
      op: z.enum(['<', '<=', '>', '>=']).default('<'),
      threshold: z.union([z.string(), z.number()]).describe('in the metric unit: 500ms, 1.5s, 0.1%, 1000 (tok/s)'),
      window: z.union([z.string(), z.number()]).optional().describe('tumbling window, e.g. 5m; absent: the whole measured phase'),
      attainment: z.union([z.string(), z.number()]).optional().describe('share of windows that must meet it, e.g. 99.9%'),
    })
    .strict();
  const entry = z
    .union([z.string(), objectForm])
    .describe(`an SLO: ${SYNTAX}`)
    .transform((v, ctx): Objective => {
      const text =
        typeof v === 'string'
          ? v
          : `${v.statistic ? `${v.statistic}(${v.metric})` : v.metric} ${v.op} ${v.threshold}` +
            (v.window !== undefined ? ` over ${v.window}` : '') +
            (v.attainment !== undefined ? ` >= ${v.attainment}` : '');
      try {
        return parseObjective(text, catalog);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof UnitError ? err.message : String(err) });
        return z.NEVER;
      }
    });
  return z.array(entry).default([]).describe('SLOs with a metric, statistic, threshold, window and attainment target; any failing one exits 3');
}
