/**
 * Rerank and score (vLLM `--runner pooling` with a cross-encoder, Jina, Cohere, TEI-style
 * servers): one request carries a query and a batch of documents and is answered by one JSON
 * body of scores, one per document. Nothing is generated: a request's latency is its whole
 * answer, and the documents are the request's inputs (`--batch-size`, default 1), counted as
 * embeddings' inputs are (records `inputs`, result.json `metrics.batch`).
 *
 * - **rerank** — `/v1/rerank` (and `/rerank`, `/v2/rerank`): `{"model","query","documents":[…]}`,
 *   answered `{"id","model","usage":{"prompt_tokens","total_tokens"},"results":[{"index",
 *   "document":{"text"},"relevance_score"}…]}` (older vLLM: usage `total_tokens` only; Jina and
 *   Cohere give the same `results`).
 * - **score** — vLLM's `/score` (and `/v1/score`): `{"model","text_1":query,"text_2":[…]}`,
 *   answered `{"id","object":"list","created","model","data":[{"index","object":"score","score"}…],"usage"}`.
 *
 * The query is the first document's first QUERY_WORDS words (a query that matches one of the
 * documents, as a retrieval query does). Wire format: vllm/entrypoints/openai/protocol.py (newer: pooling/score/protocol.py)
 * (RerankRequest, RerankResponse, ScoreRequest, ScoreResponse) and serving_score.py.
 */
import { bearerAuth, type EndpointKind, type UnaryAnswer } from './endpoint-kind.js';
import type { WorkItem } from '../../workload/types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** Words of the first document that make the query. */
export const QUERY_WORDS = 16;

/** The request's query: the first document's first QUERY_WORDS words. */
export function queryOf(item: WorkItem): string {
  const first = item.inputs?.[0] ?? item.prompt;
  return first.trim().split(/\s+/).slice(0, QUERY_WORDS).join(' ');
}

const documentsOf = (item: WorkItem): string[] => (item.inputs ? [...item.inputs] : [item.prompt]);

/** A usage object's prompt tokens: `prompt_tokens`, else (older vLLM rerank) `total_tokens`. */
function usageOf(u: unknown): UnaryAnswer['usage'] {
  if (!isObj(u)) return null;
  return { prompt_tokens: num(u.prompt_tokens) || num(u.total_tokens), completion_tokens: 0 };
}

/** A rerank answer: one result with a numeric relevance_score per document. */
export function parseRerank(json: unknown): UnaryAnswer | null {
  if (!isObj(json) || !Array.isArray(json.results)) return null;
  for (const r of json.results) if (!isObj(r) || typeof r.relevance_score !== 'number') return null;
  return { text: '', usage: usageOf(json.usage), finishReason: null, inputs: json.results.length };
}

/** A score answer: one entry with a numeric score per document. */
export function parseScore(json: unknown): UnaryAnswer | null {
  if (!isObj(json) || !Array.isArray(json.data)) return null;
  for (const d of json.data) if (!isObj(d) || typeof d.score !== 'number') return null;
  return { text: '', usage: usageOf(json.usage), finishReason: null, inputs: json.data.length };
}

export const rerankKind: EndpointKind = {
  name: 'rerank',
  path: '/v1/rerank',
  generates: false,
  inputUnit: 'documents',
  input: 'prompt',
  authHeaders: bearerAuth,
  buildBody: (item, opts) => ({ model: opts.model, query: queryOf(item), documents: documentsOf(item), ...opts.extraBody }),
  parseUnary: parseRerank,
};

export const scoreKind: EndpointKind = {
  name: 'score',
  path: '/score',
  generates: false,
  inputUnit: 'documents',
  input: 'prompt',
  authHeaders: bearerAuth,
  buildBody: (item, opts) => ({ model: opts.model, text_1: queryOf(item), text_2: documentsOf(item), ...opts.extraBody }),
  parseUnary: parseScore,
};
