/**
 * The figures `compare` judges, which way is better for each, and how to read each from a run's
 * metrics or from a vLLM result file (vllm bench serve --save-result keys).
 */
import type { RunMetrics } from '../../metrics/index.js';

export type FigureId =
  | `${'ttft' | 'tpot' | 'itl' | 'e2el'}_${'p50' | 'p90' | 'p99'}`
  | 'request_throughput'
  | 'output_throughput'
  | 'total_token_throughput'
  | 'goodput'
  | 'error_rate'
  | 'cost_per_1m_tokens';

export interface KeyFigure {
  id: FigureId;
  label: string;
  better: 'lower' | 'higher';
  /** relative: delta as a share of the baseline; absolute: a difference (rates of requests). */
  delta: 'relative' | 'absolute';
}

export const LATENCY_KEYS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type LatencyKey = (typeof LATENCY_KEYS)[number];
export const PERCENTILES = [50, 90, 99] as const;

export const KEY_FIGURES: readonly KeyFigure[] = [
  ...LATENCY_KEYS.flatMap((m) =>
    PERCENTILES.map((p): KeyFigure => ({ id: `${m}_p${p}`, label: `${m.toUpperCase()} p${p} (ms)`, better: 'lower', delta: 'relative' })),
  ),
  { id: 'request_throughput', label: 'Requests/s', better: 'higher', delta: 'relative' },
  { id: 'output_throughput', label: 'Output tokens/s', better: 'higher', delta: 'relative' },
  { id: 'total_token_throughput', label: 'Total tokens/s', better: 'higher', delta: 'relative' },
  { id: 'goodput', label: 'Goodput (req/s)', better: 'higher', delta: 'relative' },
  { id: 'error_rate', label: 'Error rate', better: 'lower', delta: 'absolute' },
  { id: 'cost_per_1m_tokens', label: 'Cost per 1M tokens', better: 'lower', delta: 'relative' },
];

export type FigureValues = Partial<Record<FigureId, number | null>>;

/** Point values of a run: its metrics, plus its cost per 1M tokens when it was costed. */
export function figuresOfRun(m: RunMetrics, costPer1m: number | null): FigureValues {
  const out: FigureValues = {};
  for (const k of LATENCY_KEYS) {
    const d = m.latency[`${k}_ms`];
    out[`${k}_p50`] = d.p50;
    out[`${k}_p90`] = d.p90;
    out[`${k}_p99`] = d.p99;
  }
  out.request_throughput = m.throughput.request_per_s;
  out.output_throughput = m.throughput.output_tokens_per_s;
  out.total_token_throughput = m.throughput.total_tokens_per_s;
  out.goodput = m.goodput ? m.goodput.request_per_s : null;
  out.error_rate = m.requests.error_rate;
  out.cost_per_1m_tokens = costPer1m;
  return out;
}

/** Point values from a vLLM result JSON (keys it lacks stay undefined). */
export function figuresOfVllm(j: Record<string, unknown>): FigureValues {
  const num = (k: string): number | null | undefined => (typeof j[k] === 'number' ? (j[k] as number) : j[k] === null ? null : undefined);
  const out: FigureValues = {};
  for (const k of LATENCY_KEYS) {
    out[`${k}_p50`] = num(`median_${k}_ms`) ?? num(`p50_${k}_ms`);
    out[`${k}_p90`] = num(`p90_${k}_ms`);
    out[`${k}_p99`] = num(`p99_${k}_ms`);
  }
  out.request_throughput = num('request_throughput');
  out.output_throughput = num('output_throughput');
  out.total_token_throughput = num('total_token_throughput');
  out.goodput = num('request_goodput');
  const completed = num('completed');
  const failed = num('failed');
  if (typeof completed === 'number' && typeof failed === 'number' && completed + failed > 0) out.error_rate = failed / (completed + failed);
  for (const key of Object.keys(out) as FigureId[]) if (out[key] === undefined) delete out[key];
  return out;
}
