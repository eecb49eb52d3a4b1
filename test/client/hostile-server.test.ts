/**
 * Hostile servers, round 2 (issue 24): compressed answers, events after [DONE], impossible usage,
 * and streams that stall. Real HTTP on 127.0.0.1; every outcome asserted by class and message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { RequestRecord } from '../../src/record/record.js';
import type { HttpTarget, TargetConfig } from '../../src/client/http-client.js';
import { sendOnce as sendTo, testTarget } from '../helpers/client-target.js';
import { checkUsage } from '../../src/client/usage-check.js';
import { StallWatch } from '../../src/client/stall-watch.js';
import type { WorkItem } from '../../src/workload/types.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const item: WorkItem = { prompt: 'one two three four', messages: null, prompt_tokens: 4, max_tokens: 3, task: null, expected: null, session: null, turn: null };

const target = (baseUrl: string, over: Partial<TargetConfig> = {}): HttpTarget => testTarget(baseUrl, { timeoutMs: 20_000, keepText: true, ...over });
const sendOnce = (t: HttpTarget): Promise<RequestRecord> => sendTo(t, item);

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const usageEvent = (u: object) => `data: ${JSON.stringify({ choices: [], usage: u })}\n\n`;
const stream = `${chunk('a')}${chunk('b')}${chunk('c', 'length')}`;

describe('content encodings', () => {
  it('asks for identity, and a gzip event stream anyway is not_event_stream naming the encoding', async () => {
    let asked: string | undefined;
    server = await startTestServer((req, res) => {
      asked = req.headers['accept-encoding'];
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(gzipSync(`${stream}data: [DONE]\n\n`));
    });
    const rec = await sendOnce(target(server.url));
    expect(asked).toBe('identity');
    expect(rec).toMatchObject({ status: 'error', error_class: 'not_event_stream', http_status: 200 });
    expect(rec.error_message).toMatch(/^HTTP 200 with content-encoding gzip although infermeter asked for identity: a compressed event stream cannot be timed per token/);
  });

  it('an identity content-encoding stream is read as usual', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'identity' });
      res.end(`${stream}data: [DONE]\n\n`);
    });
    expect(await sendOnce(target(server.url))).toMatchObject({ status: 'ok', output_tokens: 3 });
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a non-streaming %s answer is decoded', async (enc, compress) => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': enc });
      res.end(compress(Buffer.from(JSON.stringify({ choices: [{ text: 'hello', finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 2 } }))));
    });
    const rec = await sendOnce(target(server.url, { stream: false }));
    expect(rec).toMatchObject({ status: 'ok', output_text: 'hello', output_tokens: 2, token_source: 'usage' });
  });

  it('a gzip error body is decoded for the message; an undecodable 200 body is malformed_stream', async () => {
    server = await startTestServer((req, res) => {
      if (req.headers['x-case'] === 'bad') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end('this is not gzip');
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ error: { message: 'max_tokens is too large' } })));
    });
    const err = await sendOnce(target(server.url));
    expect(err).toMatchObject({ error_class: 'http_4xx', error_message: 'HTTP 400: max_tokens is too large' });
    const bad = await sendOnce(target(server.url, { stream: false, headers: { 'X-Case': 'bad' } }));
    expect(bad.error_class).toBe('malformed_stream');
    expect(bad.error_message).toMatch(/^could not decode the content-encoding gzip body: /);
  });
});

describe('events after [DONE]', () => {
  it('are ignored (no content, usage or finish reason taken from them) and counted in the record', async () => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${stream}${usageEvent({ prompt_tokens: 4, completion_tokens: 3 })}data: [DONE]\n\n${chunk('late')}${usageEvent({ prompt_tokens: 4, completion_tokens: 50 })}`);
    });
    const rec = await sendOnce(target(server.url));
    expect(rec).toMatchObject({ status: 'ok', output_text: 'abc', output_tokens: 3, token_source: 'usage', finish_reason: 'length', events_after_done: 2 });
    expect(rec.chunk_ms.length).toBe(3);
  });

  it('a stream without them has no events_after_done field', async () => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${stream}data: [DONE]\n\n`);
    });
    expect(await sendOnce(target(server.url))).not.toHaveProperty('events_after_done');
  });
});

describe('impossible usage', () => {
  it.each([
    [{ prompt_tokens: 4, completion_tokens: -5 }, 'completion_tokens -5 is negative'],
    [{ prompt_tokens: 4, completion_tokens: 2.5 }, 'completion_tokens 2.5 is not a whole number'],
    [{ prompt_tokens: -1, completion_tokens: 3 }, 'prompt_tokens -1 is negative'],
    [{ prompt_tokens: 1_000_000, completion_tokens: 3 }, "prompt_tokens 1000000 cannot belong to the prompt sent (4 tokens by the client's count)"],
    [{ prompt_tokens: 4, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: 9 } }, 'completion_tokens_details.reasoning_tokens 9 exceeds completion_tokens 3'],
  ])('%o is rejected (%s) and output falls back to counted chunks', async (usage, why) => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${stream}${usageEvent(usage)}data: [DONE]\n\n`);
    });
    const rec = await sendOnce(target(server.url));
    expect(rec).toMatchObject({ status: 'ok', usage_rejected: why, token_source: 'chunks', output_tokens: 3, prompt_tokens: 4 });
    expect(rec).not.toHaveProperty('reasoning_tokens');
  });

  it('believable usage is taken, including a served prompt longer than the estimate', async () => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${stream}${usageEvent({ prompt_tokens: 30, completion_tokens: 3 })}data: [DONE]\n\n`);
    });
    const rec = await sendOnce(target(server.url));
    expect(rec).toMatchObject({ token_source: 'usage', prompt_tokens: 30, output_tokens: 3 });
    expect(rec).not.toHaveProperty('usage_rejected');
  });

  it('the far-prompt bound holds at its edges and is not applied to a session’s later turns', () => {
    const u = (p: number) => ({ prompt_tokens: p, completion_tokens: 1 });
    expect(checkUsage(u(100 * 10 + 256), 100, 0)).toBeNull();
    expect(checkUsage(u(100 * 10 + 257), 100, 0)).toMatch(/cannot belong/);
    expect(checkUsage(u(44), 3000, null)).toBeNull(); // 3000 / 10 − 256 = 44
    expect(checkUsage(u(43), 3000, null)).toMatch(/cannot belong/);
    expect(checkUsage(u(1_000_000), 4, 2)).toBeNull();
    expect(checkUsage(u(1_000_000), null, 0)).toBeNull();
  });
});

describe('stalls (--stall-timeout)', () => {
  it('a stream silent after two chunks ends as stalled, keeping what arrived', async () => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.write(chunk('a'));
      res.write(chunk('b')); // then nothing, and the socket stays open
    });
    const rec = await sendOnce(target(server.url, { stallTimeoutMs: 100 }));
    expect(rec).toMatchObject({ status: 'error', error_class: 'stalled', output_text: 'ab' });
    expect(rec.chunk_ms.length).toBe(2);
    expect(rec.error_message).toMatch(/^stalled: no byte for \d+ ms \(--stall-timeout 100 ms\) after 2 content chunks$/);
  });

  it('the watch ends a request only once it has been silent for the whole timeout (event order, fake clock)', () => {
    let now = 0;
    const last = new Map<string, number | null>([
      ['silent', 0],
      ['talking', 0],
      ['no-response-yet', null],
    ]);
    const stalled: string[] = [];
    const w = new StallWatch<string>(1000, () => now, new Set(last.keys()), (k) => last.get(k) ?? null, (k) => stalled.push(k));
    now = 999;
    last.set('talking', 990);
    w.sweep();
    expect(stalled).toEqual([]);
    now = 1000;
    w.sweep();
    expect(stalled).toEqual(['silent']);
    now = 1989;
    w.sweep();
    expect(stalled).toEqual(['silent', 'silent']); // the caller removes an ended request; the watch does not
    now = 1990;
    stalled.length = 0;
    w.sweep();
    expect(stalled).toEqual(['silent', 'talking']);
    w.stop();
  });
});
