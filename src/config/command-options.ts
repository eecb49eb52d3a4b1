/**
 * The options of `plan` and a sweep's stages, validated by zod schemas as run's flags
 * are (config/schema.ts): commander's option bag in, typed options with defaults out, and one
 * line naming the flag when a value is wrong. Shares go through units.ts's one grammar.
 */
import { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { parseDurationMs, parseShare, UnitError } from './units.js';

/** `--kebab-case` of a commander option key (`minEffect` → `--min-effect`). */
function flagOf(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** A share flag (`5%` or `0.05`) within (lo, hi) or [lo, hi); `range` names it in the message. */
function shareIn(test: (v: number) => boolean, range: string) {
  return z.union([z.string(), z.number()]).transform((raw, ctx) => {
    let v = NaN;
    try {
      v = parseShare(raw);
    } catch (err) {
      if (!(err instanceof UnitError)) throw err;
    }
    if (!test(v)) {
      ctx.addIssue({ code: 'custom', message: `expected a share in ${range}, got "${String(raw)}"` });
      return z.NEVER;
    }
    return v;
  });
}

function intAtLeast(min: number) {
  return z.union([z.string(), z.number()]).transform((raw, ctx) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      ctx.addIssue({ code: 'custom', message: `expected an integer ≥ ${min}, got "${String(raw)}"` });
      return z.NEVER;
    }
    return n;
  });
}

function positive(integer: boolean) {
  return z.union([z.string(), z.number()]).transform((raw, ctx) => {
    const n = Number(raw);
    if (!(Number.isFinite(n) && n > 0 && (!integer || Number.isInteger(n)))) {
      ctx.addIssue({ code: 'custom', message: `expected a positive ${integer ? 'integer' : 'number'}, got "${String(raw)}"` });
      return z.NEVER;
    }
    return n;
  });
}

/** A comma list, repeatable (`--hardware h100,h200 --hardware a100`). */
const list = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean));

const repeatable = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));

/** Validates a command's option bag; bad input is one line naming the flag (exit 2). */
export function parseCommandOptions<S extends z.ZodType>(schema: S, opts: Record<string, unknown>): z.output<S> {
  const r = schema.safeParse(opts);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const key = issue.path[0];
  throw new UserError(`${typeof key === 'string' ? flagOf(key) : 'options'}: ${issue.message}`);
}

const probeDuration = z.string().transform((raw, ctx) => {
  try {
    const ms = parseDurationMs(raw, 's');
    if (ms < 1000) throw new UnitError('at least 1s');
    return ms;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
    return z.NEVER;
  }
});

/** `infermeter plan`'s options (the traffic and SLO texts are parsed by the plan session). */
export const PlanFlagsSchema = z.object({
  traffic: z.string({ error: '--traffic is required: a rate such as 200rps, a run directory or a trace file' }),
  slo: repeatable.default([]),
  goodput: repeatable.default([]),
  headroom: shareIn((v) => v >= 0 && v < 1, '[0%, 100%), e.g. 30%').default(0.3),
  gpuHourCost: z
    .string()
    .transform((raw, ctx) => {
      const n = Number(raw);
      if (!(n > 0)) ctx.addIssue({ code: 'custom', message: `expected a positive price, got "${raw}"` });
      return n;
    })
    .nullable()
    .default(null),
  prices: z.string().nullable().default(null),
  gpuType: z.string().nullable().default(null),
  from: list.nullable().default(null),
  gpusPerReplica: intAtLeast(1).optional(),
  hardware: list.nullable().default(null),
  tensorParallelSize: list
    .transform((xs, ctx) => {
      const bad = xs.find((x) => !(Number.isInteger(Number(x)) && Number(x) >= 1));
      if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `expected an integer ≥ 1, got "${bad}"` });
      return xs.map(Number);
    })
    .nullable()
    .default(null),
  model: z.string().default('llama-3.1-8b'),
  simProfile: z.string().nullable().default(null),
  randomInputLen: intAtLeast(1).default(1024),
  randomOutputLen: intAtLeast(1).default(128),
  probeDuration: probeDuration.default(60_000),
  seed: intAtLeast(0).default(0),
  precision: shareIn((v) => v > 0 && v < 1, '(0%, 100%), e.g. 5%').default(0.05),
  allowInvalid: z.boolean().default(false),
  json: z.boolean().default(false),
});
export type PlanFlags = z.output<typeof PlanFlagsSchema>;

/** A sweep's stage options (`--request-rates`, `--concurrencies`, `--auto`, `--search` and its bounds). */
export const SweepStageFlagsSchema = z.object({
  requestRates: z.string().optional(),
  concurrencies: z.string().optional(),
  auto: positive(true).optional(),
  search: z.union([z.literal(true), z.string()]).optional(),
  precision: shareIn((v) => v > 0 && v < 1, '(0%, 100%), e.g. 5% or 0.05').default(0.05),
  searchStart: positive(false).optional(),
  searchMax: positive(false).optional(),
  batchSizes: z.string().optional(),
});

/**
 * What `compare` judges with (the API's `compare` options; the CLI's flags add the outputs below).
 * Shares as everywhere: `5%` or `0.05`. A threshold or minimum effect has no upper bound (20% and
 * 150% are both changes one may gate on); the confidence is a level strictly between 0 and 100%.
 */
export const CompareOptionsSchema = z.object({
  resamples: intAtLeast(1).default(1000),
  seed: intAtLeast(0).default(0),
  confidence: shareIn((v) => v > 0 && v < 1, '(0%, 100%), e.g. 95%').default(0.95),
  minEffect: shareIn((v) => v >= 0, '[0%, ∞), e.g. 2%').default(0.02),
  force: z.boolean().default(false),
  /** `--vary engine_version,gpu` (repeatable): fingerprint fields under test, checked by the session (analysis/environment-diff.ts parseVary). */
  vary: z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v])).default([]),
  allowInvalid: z.boolean().default(false),
  failOnRegression: shareIn((v) => v >= 0, '[0%, ∞), e.g. 5%').nullable().default(null),
  failOnQualityDrop: shareIn((v) => v >= 0, '[0%, ∞) of accuracy points, e.g. 1%').nullable().default(null),
});
export type CompareOptionsInput = z.input<typeof CompareOptionsSchema>;
export type CompareRunOptions = z.output<typeof CompareOptionsSchema>;

/** `infermeter compare`'s flags: the judging options and where the outputs go. */
export const CompareFlagsSchema = CompareOptionsSchema.extend({
  junit: z
    .union([z.literal(true), z.string()])
    .transform((v, ctx) => {
      if (v === true) {
        ctx.addIssue({ code: 'custom', message: 'give the file to write, e.g. --junit compare.xml' });
        return z.NEVER;
      }
      return v;
    })
    .nullable()
    .default(null),
  /** true: the Markdown goes to stdout; a string: to that file. */
  markdown: z.union([z.literal(true), z.string()]).nullable().default(null),
  html: z.string().nullable().default(null),
  json: z.boolean().default(false),
  /** --against-history: one run against the noise band of its spec's earlier runs (history/history-band.ts). */
  againstHistory: z.boolean().default(false),
  resultsDir: z.string().default('results'),
});
export type CompareFlags = z.output<typeof CompareFlagsSchema>;
