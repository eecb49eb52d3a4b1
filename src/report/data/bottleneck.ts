/**
 * The bottleneck in one line, when the server's own series say it (result.json `server.series`,
 * docs/observe.md). Pure: summaries in, a finding with its evidence out, or null when the
 * series do not point at one cause. The rules, in the order they are tried (the first that
 * holds wins, because each later cause is also a symptom of the earlier ones):
 *
 *   KV pressure   the server preempted requests (preemptions > 0) and KV-cache usage peaked
 *                 at ≥ 90 %: requests were evicted and recomputed for lack of cache.
 *   queueing      requests waited: mean waiting ≥ 1, or queue time ≥ half the server's TTFT.
 *   prefill-bound prefill time ≥ decode time per request (mean of the server's histograms).
 *   decode-bound  decode time ≥ 60 % of the server's end-to-end time per request, no queueing.
 *
 * The thresholds are documented in docs/report.md §First screen.
 */
import type { SeriesId } from '../../observe/engines.js';
import type { SeriesSummary } from '../../observe/series.js';

export type BottleneckKind = 'kv_pressure' | 'queueing' | 'prefill' | 'decode';

export interface Bottleneck {
  kind: BottleneckKind;
  /** One line a user can act on, e.g. "Queueing: requests waited for a batch slot". */
  headline: string;
  /** The figures that say so, each with its unit. */
  evidence: string[];
}

export type ServerSeries = Partial<Record<SeriesId, SeriesSummary>>;

/** KV-cache usage peak at or above which preemptions are blamed on the cache. */
export const KV_PRESSURE_PEAK = 0.9;
/** Mean waiting requests at or above which the run is queue-bound. */
export const QUEUE_MEAN_WAITING = 1;
/** Share of the server's TTFT spent queued at or above which the run is queue-bound. */
export const QUEUE_SHARE_OF_TTFT = 0.5;
/** Share of the server's end-to-end time spent decoding at or above which the run is decode-bound. */
export const DECODE_SHARE_OF_E2EL = 0.6;

const ms = (s: number): string => `${(s * 1000).toFixed(s < 0.1 ? 1 : 0)} ms`;
const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;
const n1 = (x: number): string => x.toFixed(1);
const mean = (s: SeriesSummary | undefined): number | null => (s && s.mean !== null && Number.isFinite(s.mean) ? s.mean : null);

export function diagnoseBottleneck(series: ServerSeries): Bottleneck | null {
  const preemptions = series.preemptions_per_s?.total ?? 0;
  const kvPeak = series.kv_usage?.max ?? null;
  const waiting = mean(series.waiting);
  const queue = mean(series.queue_time_s);
  const prefill = mean(series.prefill_time_s);
  const decode = mean(series.decode_time_s);
  const ttft = mean(series.ttft_s) ?? (queue !== null && prefill !== null ? queue + prefill : null);
  const e2el = mean(series.e2el_s);

  if (preemptions > 0 && kvPeak !== null && kvPeak >= KV_PRESSURE_PEAK) {
    const evidence = [`KV-cache usage peaked at ${pct(kvPeak)}`, `${Math.round(preemptions)} preemption${Math.round(preemptions) === 1 ? '' : 's'}`];
    if (waiting !== null) evidence.push(`${n1(waiting)} requests waiting on average`);
    return { kind: 'kv_pressure', headline: 'KV-cache pressure: the server ran out of cache and preempted requests (more KV memory, a shorter max-model-len or fewer concurrent sequences would help)', evidence };
  }

  const queueShare = queue !== null && ttft !== null && ttft > 0 ? queue / ttft : null;
  if ((waiting !== null && waiting >= QUEUE_MEAN_WAITING) || (queueShare !== null && queueShare >= QUEUE_SHARE_OF_TTFT)) {
    const evidence: string[] = [];
    if (waiting !== null) evidence.push(`${n1(waiting)} requests waiting on average (peak ${Math.round(series.waiting?.max ?? waiting)})`);
    if (queue !== null && ttft !== null && queueShare !== null) evidence.push(`queue time ${ms(queue)} of the server's ${ms(ttft)} TTFT (${pct(queueShare)})`);
    return { kind: 'queueing', headline: 'Queueing: requests waited for a batch slot; the offered load is above what the server serves at once (more replicas or a higher max-num-seqs would help)', evidence };
  }

  if (prefill !== null && decode !== null && prefill >= decode) {
    const evidence = [`prefill ${ms(prefill)} vs. decode ${ms(decode)} per request`];
    const p = mean(series.prompt_tokens_per_s);
    const g = mean(series.generation_tokens_per_s);
    if (p !== null && g !== null) evidence.push(`${p.toFixed(0)} prompt vs. ${g.toFixed(0)} generated tokens/s`);
    return { kind: 'prefill', headline: 'Prefill-bound: the server spends more time reading prompts than generating (prefix caching, shorter prompts or chunked prefill would help)', evidence };
  }

  const decodeShare = decode !== null && e2el !== null && e2el > 0 ? decode / e2el : null;
  if (decode !== null && decodeShare !== null && decodeShare >= DECODE_SHARE_OF_E2EL) {
    const evidence = [`decode ${ms(decode)} of the server's ${ms(e2el!)} end-to-end time (${pct(decodeShare)})`];
    if (prefill !== null) evidence.push(`prefill ${ms(prefill)}`);
    if (waiting !== null) evidence.push(`${n1(waiting)} requests waiting on average`);
    return { kind: 'decode', headline: 'Decode-bound: generating tokens takes most of each request’s time, with no queue (a faster GPU, quantization or speculative decoding would help TPOT)', evidence };
  }
  return null;
}
