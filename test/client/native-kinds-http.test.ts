/**
 * The native engine kinds end to end over real HTTP on 127.0.0.1: the client against the
 * built-in simulator serving TGI's, SGLang's and Triton's APIs, against a server replaying the
 * documented event sequences, and pre-flight's one line when a server does not answer the kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { preflight } from '../../src/client/preflight.js';
import { UserError } from '../../src/errors/user-error.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { WorkItem } from '../../src/workload/types.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';

const item = (over: Partial<WorkItem> = {}): WorkItem => ({ prompt: 'one two three four five six seven eight', messages: null, prompt_tokens: 8, max_tokens: 6, task: null, expected: null, session: null, turn: null, ...over });

const base = { model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 5000, keepText: true };

async function sendOne(baseUrl: string, over: Partial<TargetConfig> & { path: string }, it: WorkItem = item()): Promise<RequestRecord> {
  const t0 = performance.now();
  const t = new HttpTarget({ baseUrl, ...base, ...over }, () => performance.now() - t0);
  try {
    return await t.send(emptyRecord(0, 0), t.prepare(it));
  } finally {
    t.close();
  }
}

const KINDS = [
  ['tgi', '/generate_stream', 'usage', 'length'],
  ['sglang', '/generate', 'usage', 'length'],
  ['triton', '/v2/models/ensemble/generate_stream', 'chunks', null],
] as const;

describe('native kinds against the simulator', () => {
  let sim: SimServer;
  let faulty: SimServer;
  beforeAll(async () => {
    // No EOS: TGI and Triton send no ignore_eos, so every answer runs to max_tokens.
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 2 }, eosMeanTokens: Infinity });
    faulty = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 }, eosMeanTokens: Infinity, faults: { oomRate: 1 } });
  });
  afterAll(async () => {
    await sim.close();
    await faulty.close();
  });

  for (const [kind, path, source, finish] of KINDS) {
    it(`${kind}, streamed: one chunk per token, ${source === 'usage' ? 'exact usage' : 'tokens counted from the events (no usage)'}, finish ${finish}`, async () => {
      const rec = await sendOne(sim.url, { path, endpointType: kind });
      expect(rec.error_message).toBeNull();
      expect([rec.status, rec.http_status, rec.output_tokens, rec.token_source, rec.chunk_ms.length, rec.finish_reason]).toEqual(['ok', 200, 6, source, 6, finish]);
      expect(rec.first_token_ms).toBe(rec.chunk_ms[0]);
      expect(rec.first_token_ms! - rec.sent_ms).toBeGreaterThanOrEqual(20);
      expect(rec.output_text!.trim().split(/\s+/)).toHaveLength(6);
      // The server's count where it reports one (as /v1/completions' usage gives it), else the client's.
      const completions = await sendOne(sim.url, { path: '/v1/completions' });
      expect(rec.prompt_tokens).toBe(source === 'usage' ? completions.prompt_tokens : 8);
      if (source === 'usage') expect(rec.usage_rejected).toBeUndefined();
    });

    it(`${kind}: the path alone names the kind`, async () => {
      const rec = await sendOne(sim.url, { path });
      expect([rec.status, rec.output_tokens, rec.chunk_ms.length]).toEqual(['ok', 6, 6]);
    });

    it(`${kind}: an error after the first token is the stream's own error event (server_error_event)`, async () => {
      const rec = await sendOne(faulty.url, { path, endpointType: kind });
      expect([rec.status, rec.error_class]).toEqual(['error', 'server_error_event']);
      expect(rec.error_message).toMatch(/out of memory/i);
    });
  }

  it("unary: TGI's /generate, SGLang's /generate without stream, Triton's /generate", async () => {
    const tgi = await sendOne(sim.url, { path: '/generate', endpointType: 'tgi', stream: false });
    expect([tgi.status, tgi.output_tokens, tgi.token_source, tgi.finish_reason, tgi.chunk_ms.length]).toEqual(['ok', 6, 'usage', 'length', 1]);
    const sgl = await sendOne(sim.url, { path: '/generate', endpointType: 'sglang', stream: false });
    expect([sgl.status, sgl.output_tokens, sgl.token_source, sgl.finish_reason]).toEqual(['ok', 6, 'usage', 'length']);
    const trt = await sendOne(sim.url, { path: '/v2/models/ensemble/generate', endpointType: 'triton', stream: false });
    expect([trt.status, trt.output_tokens, trt.token_source, trt.output_text!.trim().split(/\s+/).length]).toEqual(['ok', 1, 'chunks', 6]);
  });

  it('sglang honours ignore_eos in sampling_params; without it the simulated EOS may end the answer early', async () => {
    const eos = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, eosMeanTokens: 1 });
    try {
      const rec = await sendOne(eos.url, { path: '/generate', endpointType: 'sglang' }, item({ max_tokens: 40 }));
      expect([rec.status, rec.output_tokens, rec.finish_reason]).toEqual(['ok', 40, 'length']);
    } finally {
      await eos.close();
    }
  });

  it('pre-flight passes against each native API the simulator serves', async () => {
    for (const [kind, path] of KINDS) {
      const r = await preflight({ baseUrl: sim.url, path, endpointType: kind, ...base, model: null });
      expect(r.model).toBe('sim-llama-3.1-8b');
    }
  });
});

describe('native kinds against other servers', () => {
  it('a server replaying TGI\'s documented stream (EOS as a special token) is parsed exactly', async () => {
    const tok = (index: number, text: string, special = false) => ({ index, token: { id: 100 + index, text, logprob: -0.1, special }, generated_text: null, details: null });
    const server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.write(`data:${JSON.stringify(tok(1, ' Deep'))}\n\n`);
      res.write(`data:${JSON.stringify(tok(2, ' learning'))}\n\n`);
      res.end(`data:${JSON.stringify({ ...tok(3, '</s>', true), generated_text: ' Deep learning', details: { finish_reason: 'eos_token', generated_tokens: 3, seed: null, input_length: 9 } })}\n\n`);
    });
    try {
      const rec = await sendOne(server.url, { path: '/generate_stream' });
      expect([rec.status, rec.output_text, rec.chunk_ms.length, rec.output_tokens, rec.prompt_tokens, rec.finish_reason]).toEqual(['ok', ' Deep learning', 2, 3, 9, 'stop']);
    } finally {
      await server.close();
    }
  });

  it("a server answering another kind's format fails the request in one line", async () => {
    const server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${chunk('hi')}${chunk('!', 'length')}data: [DONE]\n\n`);
    });
    try {
      const rec = await sendOne(server.url, { path: '/generate_stream', endpointType: 'tgi' });
      expect([rec.status, rec.error_class, rec.error_message]).toEqual(['error', 'disconnect', 'stream ended without a final event with generated_text']);
    } finally {
      await server.close();
    }
  });

  it('pre-flight: a 404 on /generate_stream names --endpoint-type in one line', async () => {
    const server = await startTestServer((req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
    });
    try {
      const err = await preflight({ baseUrl: server.url, path: '/generate_stream', endpointType: 'tgi', ...base, model: 'm' }, { sleep: async () => {}, log: () => {} }).then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toBe(`pre-flight request to ${server.url}/generate_stream failed: HTTP 404: Not Found; the server does not serve the tgi API at --endpoint /generate_stream: check --endpoint-type (the API the server speaks) and --endpoint`);
    } finally {
      await server.close();
    }
  });
});
