/**
 * The spec hash: what makes two runs comparable. Two runs with the same hash sent the same
 * load (shape, rate, seed, warmup) and the same workload to the same target (endpoint, model,
 * request options) — so a change in their figures is a change in the server, not in the test.
 * Left out: the output section and run name (where and how results are written), the client's
 * mechanics that do not change what is sent (worker threads, --busy-poll, --preconnect), the
 * SLOs (they judge, not measure), and the built-in simulator's port, which is picked at random.
 */
import { createHash } from 'node:crypto';
import { redactUrl } from '../util/redact.js';

const CLIENT_MECHANICS = new Set(['workers', 'busy_poll', 'preconnect']);

/** JSON with object keys sorted at every depth, so the hash does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function pick(obj: unknown): Record<string, unknown> {
  return obj && typeof obj === 'object' && !Array.isArray(obj) ? (obj as Record<string, unknown>) : {};
}

/**
 * The comparable part of a saved spec.json. `simulated`: the target was the built-in simulator
 * (its URL is dropped and its engine settings kept); `driver`: http or virtual time.
 */
export function comparableSpec(spec: unknown, opts: { simulated: boolean; driver: string }): Record<string, unknown> {
  const s = pick(spec);
  const target = { ...pick(s.target) };
  // Only the header names: values may be credentials, and a new token must not break a trend.
  target.headers = Object.keys(pick(target.headers)).sort();
  delete target.api_key_env;
  delete target.preflight;
  target.base_url = opts.simulated || typeof target.base_url !== 'string' ? null : redactUrl(target.base_url);
  const load = Object.fromEntries(Object.entries(pick(s.load)).filter(([k]) => !CLIENT_MECHANICS.has(k)));
  return {
    driver: opts.driver,
    target,
    load,
    workload: s.workload ?? null,
    sim: opts.simulated ? (s.sim ?? null) : null,
  };
}

/** sha256 of the comparable spec, first 16 hex digits (64 bits: no collision among a history's runs). */
export function specHash(spec: unknown, opts: { simulated: boolean; driver: string }): string {
  return createHash('sha256').update(canonicalJson(comparableSpec(spec, opts))).digest('hex').slice(0, 16);
}
