/**
 * What `analyze` knows of a saved run besides its records: result.json when the run finished,
 * else spec.json (written before the load started, so a killed run has it too), else nothing.
 */
import type { RunResult } from '../report/result-json.js';
import { readPartialRun } from '../store/run-bundle.js';
import type { GoodputSlo as Slo } from '../config/slo.js';

/** The fields of spec.json analyze reads (the run spec as validated, secrets removed). */
interface SavedSpec {
  name?: string;
  target?: { base_url?: string | null; endpoint?: string; model?: string | null; stream?: boolean; ignore_eos?: boolean | null };
  load?: { request_rate?: number | null; burstiness?: number; max_concurrency?: number | null; concurrency?: number | null; num_prompts?: number | null; duration_ms?: number | null };
  workload?: { tokenizer?: string | null };
  goodput?: Slo[];
  sim?: { model?: string };
  output?: { metric_percentiles?: unknown; percentile_metrics?: unknown };
}

export interface SavedRun {
  result: Partial<RunResult> | null;
  spec: SavedSpec | null;
}

/** result.json and spec.json through the one run-directory reader, leniently (store/run-bundle.ts `readPartialRun`). */
export function readSavedRun(dir: string, warn: (line: string) => void): SavedRun {
  const { result, spec } = readPartialRun<Partial<RunResult>>(dir, { warn });
  return { result, spec: spec as SavedSpec | null };
}

/** The run's target, from result.json, else spec.json; null when neither says. */
export function savedTarget(saved: SavedRun): RunResult['target'] | null {
  if (saved.result?.target) return saved.result.target;
  const t = saved.spec?.target;
  if (!t) return null;
  const simulated = (t.base_url ?? null) === null;
  return {
    base_url: t.base_url ?? null,
    endpoint: t.endpoint ?? '/v1/completions',
    model: t.model ?? (simulated ? (saved.spec?.sim?.model ?? 'unknown') : 'unknown'),
    simulated,
    simulator: null,
    stream: t.stream ?? true,
  };
}

/** The run's load as result.json describes it, from spec.json when the run wrote no result (a JSON null rate is `inf`). */
export function savedLoad(saved: SavedRun): Record<string, unknown> | null {
  if (saved.result?.load) return saved.result.load;
  const l = saved.spec?.load;
  if (!l) return null;
  const simulated = (saved.spec?.target?.base_url ?? null) === null;
  return {
    mode: l.concurrency != null ? 'closed' : 'open',
    request_rate: l.concurrency != null ? null : (l.request_rate ?? 'inf'),
    burstiness: l.burstiness ?? 1,
    max_concurrency: l.max_concurrency ?? null,
    concurrency: l.concurrency ?? null,
    num_prompts: l.num_prompts ?? null,
    duration_ms: l.duration_ms ?? null,
    ignore_eos: saved.spec?.target?.ignore_eos ?? simulated,
  };
}
