/**
 * The transcription kind over real HTTP on 127.0.0.1: the client against the built-in simulator's
 * /v1/audio/transcriptions (streamed and whole), against a server replaying vLLM's event sequence
 * and checking the request it gets, and pre-flight's one line when a server does not serve it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { preflight } from '../../src/client/preflight.js';
import { UserError } from '../../src/errors/user-error.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { WorkItem } from '../../src/workload/types.js';
import { synthWav } from '../../src/workload/media/audio.js';
import { audioDurationS } from '../../src/util/media.js';
import { estimateCount } from '../../src/util/token-estimate.js';
import { sseHeaders, startTestServer } from '../helpers/servers.js';

const PATH = '/v1/audio/transcriptions';
/** 2 s of audio: 50 prompt tokens by the simulator's rule. */
const wav = synthWav(2000, 11);
const item = (over: Partial<WorkItem> = {}): WorkItem => ({
  prompt: 'text that is not sent',
  messages: null,
  prompt_tokens: 5,
  max_tokens: 6,
  task: null,
  expected: null,
  session: null,
  turn: null,
  media: [{ type: 'audio', format: 'wav', data: wav.toString('base64'), bytes: wav.length, duration_s: audioDurationS(wav) }],
  ...over,
});
const base = { model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 5000, keepText: true };

async function sendOne(baseUrl: string, over: Partial<TargetConfig> = {}, it: WorkItem = item()): Promise<RequestRecord> {
  const t0 = performance.now();
  const t = new HttpTarget({ baseUrl, path: PATH, ...base, ...over }, () => performance.now() - t0);
  try {
    return await t.send(emptyRecord(0, 0), t.prepare(it));
  } finally {
    t.close();
  }
}

describe('transcription against the simulator', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 2 }, eosMeanTokens: Infinity });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('streamed: one chunk per token, usage exact (the audio alone is the prompt: 25 tokens a second), TTFT after the prefill', async () => {
    const rec = await sendOne(sim.url);
    expect(rec.error_message).toBeNull();
    expect([rec.status, rec.http_status, rec.output_tokens, rec.token_source, rec.chunk_ms.length, rec.finish_reason, rec.prompt_tokens, rec.client_prompt_tokens]).toEqual(['ok', 200, 6, 'usage', 6, 'length', 50, null]);
    expect(rec.first_token_ms).toBe(rec.chunk_ms[0]);
    expect(rec.first_token_ms! - rec.sent_ms).toBeGreaterThanOrEqual(20);
    expect([rec.audio_clips, rec.audio_bytes]).toEqual([1, wav.length]);
    expect(rec.output_text!.trim().split(/\s+/)).toHaveLength(6);
  });

  it('whole ({"text"}): latency only, output tokens by the shared estimate of the text (vLLM sends no token usage)', async () => {
    const rec = await sendOne(sim.url, { stream: false });
    expect(rec.error_message).toBeNull();
    expect([rec.status, rec.token_source, rec.chunk_ms.length, rec.first_token_ms, rec.prompt_tokens]).toEqual(['ok', 'tokenizer', 1, rec.end_ms, null]);
    expect(rec.output_tokens).toBe(estimateCount(rec.output_text!));
    expect(rec.output_tokens).toBe(6);
  });

  it('the simulator refuses a clip that is not audio with a 400 (http_4xx)', async () => {
    const png = Buffer.from('\x89PNG\r\n\x1a\n0000000000', 'latin1');
    const rec = await sendOne(sim.url, {}, item({ media: [{ type: 'audio', format: 'wav', data: png.toString('base64'), bytes: png.length, duration_s: 1 }] }));
    expect([rec.status, rec.http_status, rec.error_class, rec.error_message]).toEqual(['error', 400, 'http_4xx', 'HTTP 400: Invalid or unsupported audio file: the file is not WAV, MP3, FLAC or Ogg audio']);
  });

  it('pre-flight passes (a second of seeded audio as its probe)', async () => {
    const r = await preflight({ baseUrl: sim.url, path: PATH, endpointType: 'transcription', ...base, model: null });
    expect([r.model, r.usage_in_stream, r.prompt_calibration]).toEqual(['sim-llama-3.1-8b', true, null]);
  });
});

describe('transcription against other servers', () => {
  it("a server replaying vLLM's stream gets vLLM's multipart request and is parsed exactly", async () => {
    let got: { type: string | undefined; body: string } | null = null;
    const meta = { id: 'trsc-1', object: 'transcription.chunk', created: 1, model: 'whisper' };
    const server = await startTestServer((req, res, body) => {
      got = { type: req.headers['content-type'], body };
      sseHeaders(res);
      res.write(`data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' Hello' } }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' world.' }, finish_reason: 'stop', stop_reason: null }] })}\n\n`);
      res.end(`data: ${JSON.stringify({ ...meta, choices: [], usage: { prompt_tokens: 1500, total_tokens: 1503, completion_tokens: 3 } })}\n\ndata: [DONE]\n\n`);
    });
    try {
      const rec = await sendOne(server.url, { model: 'whisper', extraBody: { language: 'en' } });
      expect([rec.status, rec.output_text, rec.chunk_ms.length, rec.output_tokens, rec.prompt_tokens, rec.finish_reason]).toEqual(['ok', ' Hello world.', 2, 3, 1500, 'stop']);
      const boundary = /^multipart\/form-data; boundary=(\S+)$/.exec(got!.type ?? '')?.[1];
      expect(boundary).toBeDefined();
      const fields = [...got!.body.matchAll(/name="([^"]+)"(?:; filename="([^"]+)")?/g)].map((m) => m[2] ?? m[1]);
      expect(fields).toEqual(['audio.wav', 'model', 'response_format', 'temperature', 'stream', 'stream_include_usage', 'max_completion_tokens', 'language']);
      expect(got!.body.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('pre-flight: a 404 on /v1/audio/transcriptions says the server does not serve the kind, in one line', async () => {
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
      const err = await preflight({ baseUrl: server.url, path: PATH, endpointType: 'transcription', ...base, model: 'm' }, { sleep: async () => {}, log: () => {} }).then(
        () => new Error('resolved'),
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toBe(`pre-flight request to ${server.url}${PATH} failed: HTTP 404: Not Found; the server does not serve the transcription API at --endpoint ${PATH}: check --endpoint-type (the API the server speaks) and --endpoint`);
    } finally {
      await server.close();
    }
  });
});
