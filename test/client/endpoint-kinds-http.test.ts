/**
 * Each endpoint kind end to end over real HTTP on 127.0.0.1: the client against the built-in
 * simulator serving that API, and against a test server for what the simulator does not show
 * (headers sent, a server answering in another kind's format).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { WorkItem } from '../../src/workload/types.js';
import { startTestServer } from '../helpers/servers.js';

const item = (over: Partial<WorkItem> = {}): WorkItem => ({
  prompt: 'one two three four five six seven eight',
  messages: null,
  prompt_tokens: 8,
  max_tokens: 6,
  task: null,
  expected: null,
  session: null,
  turn: null,
  ...over,
});

function target(baseUrl: string, over: Partial<TargetConfig>): HttpTarget {
  const t0 = performance.now();
  return new HttpTarget(
    { baseUrl, path: '/v1/completions', model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 5000, keepText: true, ...over },
    () => performance.now() - t0,
  );
}

async function sendOne(t: HttpTarget, it: WorkItem = item()): Promise<RequestRecord> {
  try {
    return await t.send(emptyRecord(0, 0), t.prepare(it));
  } finally {
    t.close();
  }
}

describe('endpoint kinds against the simulator', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 2 } });
  });
  afterAll(() => sim.close());

  for (const [kind, path] of [
    ['responses', '/v1/responses'],
    ['anthropic', '/v1/messages'],
  ] as const) {
    it(`${kind}, streamed: one chunk per token, exact usage, max_tokens reached is length`, async () => {
      const rec = await sendOne(target(sim.url, { path, endpointType: kind }));
      expect(rec.status).toBe('ok');
      expect(rec.token_source).toBe('usage');
      expect(rec.output_tokens).toBe(6);
      expect(rec.chunk_ms.length).toBe(6);
      expect(rec.first_token_ms).toBe(rec.chunk_ms[0]);
      expect(rec.first_token_ms! - rec.sent_ms).toBeGreaterThanOrEqual(20);
      expect(rec.finish_reason).toBe('length');
      expect(rec.prompt_tokens).toBeGreaterThan(0);
      expect(rec.output_text!.trim().split(/\s+/)).toHaveLength(6);
      expect(rec.events_after_done).toBeUndefined();
    });

    it(`${kind}, unary: the whole answer, its usage`, async () => {
      const rec = await sendOne(target(sim.url, { path, endpointType: kind, stream: false }));
      expect([rec.status, rec.output_tokens, rec.token_source, rec.chunk_ms.length, rec.finish_reason]).toEqual(['ok', 6, 'usage', 1, 'length']);
    });
  }

  it('the kind follows the path when no type is given', async () => {
    const rec = await sendOne(target(sim.url, { path: '/v1/messages' }));
    expect([rec.status, rec.output_tokens, rec.chunk_ms.length]).toEqual(['ok', 6, 6]);
  });

  it('embeddings: a batch is one unary request; no first token, no chunks; inputs and prompt tokens recorded', async () => {
    const t = target(sim.url, { path: '/v1/embeddings', endpointType: 'embeddings' });
    const rec = await sendOne(t, item({ inputs: ['alpha beta', 'gamma delta epsilon', 'zeta'], prompt_tokens: 9, max_tokens: null }));
    expect(rec.status).toBe('ok');
    expect(rec.inputs).toBe(3);
    expect(rec.first_token_ms).toBeNull();
    expect(rec.chunk_ms.length).toBe(0);
    expect(rec.output_tokens).toBe(0);
    // The simulator's usage (its token estimate: one per short word, 2 + 3 + 1), not the client's 9.
    expect(rec.prompt_tokens).toBe(6);
    expect(rec.client_prompt_tokens).toBe(9);
    expect(rec.end_ms - rec.sent_ms).toBeGreaterThanOrEqual(20);
  });

  it('a server answering a kind in another kind\'s format: a classified failure, not an ok record', async () => {
    // OpenAI chat chunks read as Anthropic events: no content, no message_stop.
    const rec = await sendOne(target(sim.url, { path: '/v1/chat/completions', endpointType: 'anthropic' }));
    expect([rec.status, rec.error_class, rec.error_message]).toEqual(['error', 'disconnect', 'stream ended without message_delta or message_stop']);
  });

  it('a chat completion where an embeddings list was asked: malformed, with what came', async () => {
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] }));
    });
    try {
      const emb = await sendOne(target(server.url, { path: '/v1/embeddings' }));
      expect([emb.status, emb.error_class]).toEqual(['error', 'malformed_stream']);
      expect(emb.error_message).toMatch(/^response is not an embeddings list: \{"id":"chatcmpl-1"/);
    } finally {
      await server.close();
    }
  });
});

describe('what each kind puts on the wire', () => {
  it("Anthropic: the key in x-api-key with anthropic-version, never as Bearer; a 401 echoing it is scrubbed", async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const server = await startTestServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key sk-ant-secret-123456` } }));
    });
    try {
      const rec = await sendOne(target(server.url, { path: '/v1/messages', apiKey: 'sk-ant-secret-123456' }));
      expect(seen[0]!['x-api-key']).toBe('sk-ant-secret-123456');
      expect(seen[0]!['anthropic-version']).toBe('2023-06-01');
      expect(seen[0]!.authorization).toBeUndefined();
      expect(rec.error_class).toBe('http_4xx');
      expect(rec.error_message).toBe('HTTP 401: invalid x-api-key [redacted]');
    } finally {
      await server.close();
    }
  });

  it('embeddings ask for JSON, not a stream, even with --stream on', async () => {
    let accept: string | undefined;
    let body = '';
    const server = await startTestServer((req, res, b) => {
      accept = req.headers.accept;
      body = b;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 2] }], usage: { prompt_tokens: 8, total_tokens: 8 } }));
    });
    try {
      const rec = await sendOne(target(server.url, { path: '/v1/embeddings' }));
      expect(accept).toBe('application/json');
      expect(JSON.parse(body)).toEqual({ model: 'sim-llama-3.1-8b', input: 'one two three four five six seven eight' });
      expect([rec.status, rec.inputs, rec.prompt_tokens]).toEqual(['ok', 1, 8]);
    } finally {
      await server.close();
    }
  });

  it('embeddings: fewer vectors than inputs is a failed request', async () => {
    const server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [1] }], usage: { prompt_tokens: 4 } }));
    });
    try {
      const rec = await sendOne(target(server.url, { path: '/v1/embeddings' }), item({ inputs: ['a', 'b'] }));
      expect([rec.status, rec.error_class, rec.error_message]).toEqual(['error', 'empty_response', '1 embeddings for 2 inputs']);
    } finally {
      await server.close();
    }
  });
});
