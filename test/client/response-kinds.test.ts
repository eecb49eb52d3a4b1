/** What the client makes of answers that are not what was asked: HTML pages, echoed keys, base URLs with /v1. */
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import type { HttpTarget, TargetConfig } from '../../src/client/http-client.js';
import { sendOnce as sendTo, testTarget } from '../helpers/client-target.js';
import type { WorkItem } from '../../src/workload/types.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const item: WorkItem = { prompt: 'hello there', messages: null, prompt_tokens: 2, max_tokens: 2, task: null, expected: null, session: null, turn: null };

const target = (baseUrl: string, over: Partial<TargetConfig> = {}): HttpTarget => testTarget(baseUrl, over, () => 0);
const sendOnce = (t: HttpTarget): Promise<RequestRecord> => sendTo(t, item);

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('responses that are not an event stream', () => {
  it('an HTML 200 page to a streaming request is not_event_stream, with content type and the first characters', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html>\n<html><head><title>Sign in to Corp SSO</title></head><body>please log in</body></html>');
    });
    const rec = await sendOnce(target(server.url));
    expect(rec).toMatchObject({ status: 'error', error_class: 'not_event_stream', http_status: 200 });
    expect(rec.error_message).toMatch(/content-type text\/html; charset=utf-8/);
    expect(rec.error_message).toContain('<!DOCTYPE html> <html><head><title>Sign in to Corp SSO');
  });

  it('a JSON completion answered to a streaming request is not_event_stream too', async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ text: 'hi', finish_reason: 'stop' }] }));
    });
    const rec = await sendOnce(target(server.url));
    expect(rec.error_class).toBe('not_event_stream');
  });

  it('an event stream with parameters in its content type, or none at all, is read as a stream', async () => {
    server = await startTestServer((req, res) => {
      if (req.headers['x-variant'] === 'none') res.writeHead(200, {});
      else res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(`${chunk('a')}${chunk('b', 'length')}data: [DONE]\n\n`);
    });
    expect((await sendOnce(target(server.url))).status).toBe('ok');
    expect((await sendOnce(target(server.url, { headers: { 'X-Variant': 'none' } }))).status).toBe('ok');
  });
});

describe('secrets in error messages', () => {
  it('a 401 body echoing the API key, a header token and URL credentials keeps none of them', async () => {
    server = await startTestServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      const echoed = `${req.headers.authorization ?? ''} ${req.headers['x-api-key'] ?? ''} ${req.url ?? ''}`;
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${echoed}` } }));
    });
    const withCreds = server.url.replace('http://', 'http://alice:pa55word@') + '/?token=tok-123456';
    const rec = await sendOnce(target(withCreds, { apiKey: 'sk-live-abcdef', headers: { 'X-Api-Key': 'hdr-secret-99' } }));
    expect(rec.error_class).toBe('http_4xx');
    expect(rec.error_message).toContain('Incorrect API key provided');
    for (const secret of ['sk-live-abcdef', 'hdr-secret-99', 'tok-123456', 'pa55word']) expect(rec.error_message).not.toContain(secret);
    expect(rec.error_message).toContain('[redacted]');
  });

  it('URL credentials are sent as HTTP Basic and the base URL query is kept', async () => {
    let seen: { auth: string | undefined; url: string | undefined } = { auth: undefined, url: undefined };
    server = await startTestServer((req, res) => {
      seen = { auth: req.headers.authorization, url: req.url };
      sseHeaders(res);
      res.end(`${chunk('a', 'length')}data: [DONE]\n\n`);
    });
    const rec = await sendOnce(target(server.url.replace('http://', 'http://bob:s3cret@') + '?key=abc'));
    expect(rec.status).toBe('ok');
    expect(seen.auth).toBe(`Basic ${Buffer.from('bob:s3cret').toString('base64')}`);
    expect(seen.url).toBe('/v1/completions?key=abc');
  });
});
