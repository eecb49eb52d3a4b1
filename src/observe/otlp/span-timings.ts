/**
 * What an engine's request span says about the server's share of a request, in ms. The mapping
 * is by attribute name (docs/observe.md §Traces): vLLM's `llm_request` span carries
 * `gen_ai.latency.*` in seconds (vllm/tracing.py SpanAttributes); other engines and gateways that
 * use the same names are read the same way. A span with none of them has no timings (counted).
 *
 *   queue    = time_in_queue                 (arrival → first scheduled)
 *   prefill  = time_in_model_prefill         (first scheduled → first token)
 *   decode   = time_in_model_decode          (first token → last token)
 *   server TTFT = time_to_first_token, server E2E = e2e
 *   network and client = client TTFT − server TTFT (the join adds it)
 */
import type { ReceivedSpan } from '../../util/otlp-spans.js';

export interface ServerTimings {
  queue_ms: number | null;
  prefill_ms: number | null;
  decode_ms: number | null;
  inference_ms: number | null;
  server_ttft_ms: number | null;
  server_e2e_ms: number | null;
}

/** Attribute name (seconds) → timing field. */
export const SPAN_TIMING_ATTRIBUTES: Readonly<Record<string, keyof ServerTimings>> = {
  'gen_ai.latency.time_in_queue': 'queue_ms',
  'gen_ai.latency.time_in_model_prefill': 'prefill_ms',
  'gen_ai.latency.time_in_model_decode': 'decode_ms',
  'gen_ai.latency.time_in_model_inference': 'inference_ms',
  'gen_ai.latency.time_to_first_token': 'server_ttft_ms',
  'gen_ai.latency.e2e': 'server_e2e_ms',
};

/** Null when the span carries none of the timing attributes (or only non-numbers). */
export function serverTimingsOf(span: ReceivedSpan): ServerTimings | null {
  const t: ServerTimings = { queue_ms: null, prefill_ms: null, decode_ms: null, inference_ms: null, server_ttft_ms: null, server_e2e_ms: null };
  let any = false;
  for (const [name, field] of Object.entries(SPAN_TIMING_ATTRIBUTES)) {
    const v = span.attributes[name];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) continue;
    t[field] = v * 1000;
    any = true;
  }
  return any ? t : null;
}
