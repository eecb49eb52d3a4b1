/**
 * /v1/embeddings (OpenAI, vLLM `--runner pooling`, TEI, SGLang, Infinity): one request carries a
 * batch of inputs and is answered by one JSON body, `{"data":[{"index":i,"embedding":[…]}…],
 * "usage":{"prompt_tokens":n,"total_tokens":n}}` (vLLM's EmbeddingResponse). Nothing is generated,
 * so no figure of tokens over time applies: a request's latency is its whole answer.
 * Wire format: vllm/entrypoints/openai/protocol.py (EmbeddingRequest/EmbeddingResponse),
 * vllm/benchmarks/lib/endpoint_request_func.py (async_request_openai_embeddings).
 */
import { bearerAuth, type EndpointKind, type UnaryAnswer } from './endpoint-kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An answer with one embedding (an array of numbers, or base64 with encoding_format "base64") per input. */
export function parseEmbeddings(json: unknown): UnaryAnswer | null {
  if (!isObj(json) || !Array.isArray(json.data)) return null;
  for (const d of json.data) {
    if (!isObj(d) || !(Array.isArray(d.embedding) || typeof d.embedding === 'string')) return null;
  }
  const u = json.usage;
  const usage = isObj(u) ? { prompt_tokens: typeof u.prompt_tokens === 'number' ? u.prompt_tokens : null, completion_tokens: 0 } : null;
  return { text: '', usage, finishReason: null, inputs: json.data.length };
}

export const embeddingsKind: EndpointKind = {
  name: 'embeddings',
  path: '/v1/embeddings',
  generates: false,
  input: 'prompt',
  authHeaders: bearerAuth,
  // A batch (--batch-size > 1) is sent as an array; one input as a string, as vLLM's bench does.
  buildBody: (item, opts) => ({ model: opts.model, input: item.inputs ?? item.prompt, ...opts.extraBody }),
  parseUnary: parseEmbeddings,
};
