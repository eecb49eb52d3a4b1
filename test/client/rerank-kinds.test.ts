/**
 * Rerank and score (src/client/endpoints/rerank.ts): bodies and answers by hand (vLLM's
 * RerankResponse and ScoreResponse shapes), then over real HTTP against the simulator's
 * /v1/rerank, /rerank and /score: a batch of documents is one unary request, latency only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRerank, parseScore, queryOf, rerankKind, scoreKind } from '../../src/client/endpoints/rerank.js';
import { endpointKindForPath } from '../../src/client/endpoints/registry.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { startTestServer } from '../helpers/servers.js';
import type { WorkItem } from '../../src/workload/types.js';

const docs = ['alpha beta gamma delta', 'epsilon zeta', 'eta theta iota kappa lambda'];
const item = (over: Partial<WorkItem> = {}): WorkItem => ({ prompt: docs[0]!, messages: null, prompt_tokens: 9, max_tokens: null, task: null, expected: null, session: null, turn: null, inputs: docs, ...over });
const opts = { model: 'm', stream: false, ignoreEos: true, extraBody: {} };

describe('rerank and score bodies and answers', () => {
  it('rerank: query and documents; score: text_1 and text_2; the query is the first document\'s first 16 words', () => {
    expect(rerankKind.buildBody(item(), opts)).toEqual({ model: 'm', query: 'alpha beta gamma delta', documents: docs });
    expect(scoreKind.buildBody(item(), { ...opts, extraBody: { truncate_prompt_tokens: -1 } })).toEqual({ model: 'm', text_1: 'alpha beta gamma delta', text_2: docs, truncate_prompt_tokens: -1 });
    const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(queryOf(item({ inputs: undefined, prompt: long }))).toBe(Array.from({ length: 16 }, (_, i) => `w${i}`).join(' '));
    expect(rerankKind.buildBody(item({ inputs: undefined }), opts)).toEqual({ model: 'm', query: 'alpha beta gamma delta', documents: ['alpha beta gamma delta'] });
    expect([rerankKind.generates, scoreKind.generates, rerankKind.newScanner, scoreKind.newScanner]).toEqual([false, false, undefined, undefined]);
  });

  it('paths: /v1/rerank, /rerank, /v2/rerank are rerank; /score and /v1/score are score', () => {
    for (const p of ['/v1/rerank', '/rerank', '/v2/rerank']) expect(endpointKindForPath(p)).toBe(rerankKind);
    for (const p of ['/score', '/v1/score']) expect(endpointKindForPath(p)).toBe(scoreKind);
  });

  it("vLLM's answers: one result per document; prompt_tokens, or (older vLLM) total_tokens", () => {
    const rr = { id: 'rerank-1', model: 'm', usage: { prompt_tokens: 30, total_tokens: 30 }, results: [{ index: 2, document: { text: 'x' }, relevance_score: 0.9 }, { index: 0, document: { text: 'y' }, relevance_score: 0.1 }] };
    expect(parseRerank(rr)).toEqual({ text: '', usage: { prompt_tokens: 30, completion_tokens: 0 }, finishReason: null, inputs: 2 });
    expect(parseRerank({ ...rr, usage: { total_tokens: 31 } })?.usage).toEqual({ prompt_tokens: 31, completion_tokens: 0 });
    const sc = { id: 'score-1', object: 'list', created: 1, model: 'm', data: [{ index: 0, object: 'score', score: 0.5 }], usage: { prompt_tokens: 7, total_tokens: 7, completion_tokens: 0 } };
    expect(parseScore(sc)).toEqual({ text: '', usage: { prompt_tokens: 7, completion_tokens: 0 }, finishReason: null, inputs: 1 });
    // Another kind's answer is not this one's.
    expect(parseRerank(sc)).toBeNull();
    expect(parseScore(rr)).toBeNull();
    expect(parseRerank({ results: [{ index: 0, relevance_score: '0.5' }] })).toBeNull();
  });
});

function target(baseUrl: string, over: Partial<TargetConfig>): HttpTarget {
  const t0 = performance.now();
  return new HttpTarget({ baseUrl, path: '/v1/rerank', model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 5000, keepText: false, ...over }, () => performance.now() - t0);
}

async function sendOne(t: HttpTarget, it: WorkItem = item()): Promise<RequestRecord> {
  try {
    return await t.send(emptyRecord(0, 0), t.prepare(it));
  } finally {
    t.close();
  }
}

describe('rerank and score over HTTP', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 2 } });
  });
  afterAll(() => sim.close());

  for (const [kind, path] of [
    ['rerank', '/v1/rerank'],
    ['rerank', '/rerank'],
    ['score', '/score'],
  ] as const) {
    it(`${kind} at ${path}: one unary request per batch, no first token, inputs recorded, the server's prompt tokens`, async () => {
      const rec = await sendOne(target(sim.url, { path, endpointType: kind }));
      expect(rec.error_message).toBeNull();
      expect([rec.status, rec.inputs, rec.first_token_ms, rec.chunk_ms.length, rec.output_tokens, rec.token_source]).toEqual(['ok', 3, null, 0, 0, 'none']);
      // The simulator counts the query once per document (a cross-encoder reads each pair): its
      // count of the documents plus three queries, as its embeddings endpoint counts them.
      const d = await sendOne(target(sim.url, { path: '/v1/embeddings', endpointType: 'embeddings' }));
      const q = await sendOne(target(sim.url, { path: '/v1/embeddings', endpointType: 'embeddings' }), item({ inputs: Array(3).fill(queryOf(item())) }));
      expect(rec.prompt_tokens).toBe(d.prompt_tokens! + q.prompt_tokens!);
      expect(rec.end_ms - rec.sent_ms).toBeGreaterThanOrEqual(20);
    });
  }

  it('a server that answers fewer scores than documents fails the request', async () => {
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'r', model: 'm', usage: { total_tokens: 9 }, results: [{ index: 0, document: { text: 'a' }, relevance_score: 0.3 }] }));
    });
    try {
      const rec = await sendOne(target(server.url, { path: '/v1/rerank', endpointType: 'rerank' }));
      expect([rec.status, rec.error_class, rec.error_message]).toEqual(['error', 'empty_response', '1 scores for 3 inputs']);
    } finally {
      await server.close();
    }
  });
});
