/**
 * The comparable projection of a run spec: what must match for two runs to be compared. One
 * owner for the rule, used by the history's spec hash (and so `trend`), `compare`'s load-shape
 * check and the distributed spec check (docs/compare.md §1).
 *
 * Settings — what the user set, and what therefore must match: the target (endpoint, model,
 * server URL without credentials, request options, header names), the load (rate, arrival,
 * burstiness, concurrency, the request count when one was given, duration, ramps, warm-up,
 * cool-down, grace), the workload (dataset, length distributions, …) and, for the built-in
 * simulator, its engine settings.
 *
 * Draws — what picks the individual requests from those settings: the seed and the prompt
 * salt. They are stated, never blocking: two seeds draw different requests from the same
 * distributions (compare's length tests check that), and the salt is fresh per run against a
 * server so its prefix cache cannot serve one run from another's prompts. Only the distributed
 * check, where every worker must send its share of one set of prompts, holds them too.
 *
 * Left out entirely: the output section and run name (where results go), the client's
 * mechanics that do not change what is sent (worker threads, --busy-poll, --preconnect), the
 * SLOs (they judge, not measure), the API key's variable and the built-in simulator's port.
 */
import { createHash } from 'node:crypto';
import { redactUrl } from '../util/redact.js';

type Obj = Record<string, unknown>;

const CLIENT_MECHANICS = new Set(['workers', 'busy_poll', 'preconnect']);
/** The load's draws: what picks requests from the settings. */
const LOAD_DRAWS = new Set(['seed']);
/** The workload's draws. */
const WORKLOAD_DRAWS = new Set(['prompt_salt']);

export interface ComparableSpec {
  driver: string;
  target: Obj;
  load: Obj;
  workload: unknown;
  sim: unknown;
}

export interface Draws {
  seed: unknown;
  prompt_salt: unknown;
}

export interface SpecContext {
  /** The target was the built-in simulator: its URL is dropped and its engine settings kept. */
  simulated: boolean;
  /** http or virtual time. */
  driver: string;
}

/** JSON with object keys sorted at every depth (undefined members left out), so equal objects hash equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Obj)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const pick = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const without = (o: Obj, drop: ReadonlySet<string>): Obj => Object.fromEntries(Object.entries(o).filter(([k]) => !drop.has(k)));

/** The settings of a saved spec.json (or of the spec object a run is about to send). */
export function comparableSpec(spec: unknown, ctx: SpecContext): ComparableSpec {
  const s = pick(spec);
  const target = { ...pick(s.target) };
  // Only the header names: values may be credentials, and a new token must not break a trend.
  target.headers = Object.keys(pick(target.headers)).sort();
  delete target.api_key_env;
  delete target.preflight;
  target.base_url = ctx.simulated || typeof target.base_url !== 'string' ? null : redactUrl(target.base_url);
  return {
    driver: ctx.driver,
    target,
    load: without(pick(s.load), new Set([...CLIENT_MECHANICS, ...LOAD_DRAWS])),
    workload: workloadSettings(s.workload) ?? s.workload ?? null,
    sim: ctx.simulated ? (s.sim ?? null) : null,
  };
}

/** The draws of a spec: stated beside the settings, never part of what must match. */
export function specDraws(spec: unknown): Draws {
  const s = pick(spec);
  return { seed: pick(s.load).seed ?? null, prompt_salt: pick(s.workload).prompt_salt ?? null };
}

const sha16 = (v: unknown): string => createHash('sha256').update(canonicalJson(v)).digest('hex').slice(0, 16);

/** sha256 of the settings, first 16 hex digits (64 bits: no collision among a history's runs). */
export function specHash(spec: unknown, ctx: SpecContext): string {
  return sha16(comparableSpec(spec, ctx));
}

/** The settings and the draws: equal only when the very same requests are sent (distributed workers). */
export function exactSpecHash(spec: unknown, ctx: SpecContext): string {
  return sha16({ settings: comparableSpec(spec, ctx), draws: specDraws(spec) });
}

/**
 * The load settings of a saved run from its result.json `load` section (which also states what the
 * run produced) and, when the run directory has one, its spec.json `load` (what the user set).
 * result.json's `num_prompts` of a duration-bound run is the count it produced, an outcome: it is
 * a setting only when the spec gave it (a run bounded by both, whichever came first), or, without
 * a spec.json, when no duration bounded the run.
 */
export function loadSettings(resultLoad: Obj, specLoad: Obj | null): Obj {
  const out = without(resultLoad, new Set([...CLIENT_MECHANICS, ...LOAD_DRAWS]));
  if (typeof resultLoad.duration_ms === 'number') {
    const given = specLoad?.num_prompts;
    if (typeof given === 'number') out.num_prompts = given;
    else delete out.num_prompts;
  }
  return out;
}

/** The workload settings: the description without its draws (the prompt salt). */
export function workloadSettings(workload: unknown): Obj | null {
  return workload && typeof workload === 'object' && !Array.isArray(workload) ? without(workload as Obj, WORKLOAD_DRAWS) : null;
}

/**
 * The setup of a spec: its settings without the load (target, workload, simulator) — what a single
 * run and a sweep must share for the run to sit on the sweep's load curve, the load being what a
 * sweep varies. `model` is the model served: a spec may leave it to the target or the simulator
 * (a sim run's spec.json says null where a sim sweep's names it).
 */
export function setupSpec(spec: unknown, ctx: SpecContext, model: string | null): Omit<ComparableSpec, 'load'> {
  const { driver, target, workload, sim } = comparableSpec(spec, ctx);
  return { driver, target: { ...target, model }, workload, sim };
}
