import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { emptyRecord } from '../../src/record/record.js';
import { recordFromJsonLine, recordToJsonLine } from '../../src/record/jsonl.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import { responseIdIn, TraceIdSource } from '../../src/client/trace-context.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { WorkItem } from '../../src/workload/types.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const item: WorkItem = { prompt: 'one two three', messages: null, prompt_tokens: 3, max_tokens: 4, task: null, expected: null, session: null, turn: null };

function target(baseUrl: string, over: Partial<TargetConfig> = {}): HttpTarget {
  const t0 = performance.now();
  return new HttpTarget(
    { baseUrl, path: '/v1/completions', model: 'sim-llama-3.1-8b', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 5000, keepText: false, ...over },
    () => performance.now() - t0,
  );
}

describe('trace context on every request', () => {
  let sim: SimServer;
  let echo: TestServer;
  const seen: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, dialect: 'vllm' });
    echo = await startTestServer((req, res) => {
      seen.push(req.headers);
      sseHeaders(res);
      // A comment first: the id is looked for again in the next read.
      res.write(': ping\n\n');
      setTimeout(() => {
        res.write('data: {"id":"cmpl-echo7","choices":[{"index":0,"text":"a","finish_reason":null}]}\n\n');
        res.end(chunk('', 'length') + 'data: [DONE]\n\n');
      }, 20);
    });
  });
  afterAll(async () => {
    await sim.close();
    await echo.close();
  });

  it('sends traceparent and X-Request-Id with a fresh trace id per request, recorded in the record', async () => {
    const t = target(echo.url);
    const a = await t.send(emptyRecord(0, 0), t.prepare(item));
    const b = await t.send(emptyRecord(1, 0), t.prepare(item));
    t.close();
    expect(seen).toHaveLength(2);
    for (const [i, rec] of [a, b].entries()) {
      expect(rec.trace_id).toMatch(/^[0-9a-f]{32}$/);
      const tp = String(seen[i]!.traceparent);
      expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(tp.split('-')[1]).toBe(rec.trace_id);
      expect(seen[i]!['x-request-id']).toBe(rec.trace_id);
    }
    expect(a.trace_id).not.toBe(b.trace_id);
  });

  it('records the server id of a stream, also when the first read holds no event', async () => {
    const t = target(echo.url);
    const rec = await t.send(emptyRecord(0, 0), t.prepare(item));
    t.close();
    expect(rec.status).toBe('ok');
    expect(rec.response_id).toBe('cmpl-echo7');
  });

  it('records the simulator id, streaming and not, and round-trips it through records.jsonl', async () => {
    for (const stream of [true, false]) {
      const t = target(sim.url, { stream });
      const rec = await t.send(emptyRecord(5, 0), t.prepare(item));
      t.close();
      expect(rec.status).toBe('ok');
      expect(rec.response_id).toMatch(/^cmpl-sim\d+$/);
      const back = recordFromJsonLine(recordToJsonLine(rec));
      expect(back.trace_id).toBe(rec.trace_id);
      expect(back.response_id).toBe(rec.response_id);
    }
  });

  it('reads records written before the trace fields', () => {
    const old = recordFromJsonLine('{"id":1,"sent_ms":0,"end_ms":1,"status":"ok","chunk_ms":[]}');
    expect(old.trace_id).toBeUndefined();
    expect(old.response_id).toBeUndefined();
  });

  it('ids are distinct and never all zero; the response id is a plain string or nothing', () => {
    const src = new TraceIdSource();
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) ids.add(src.next().traceId);
    expect(ids.size).toBe(2000);
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(responseIdIn(enc('data: {"id": "x-1","o":1}'))).toBe('x-1');
    expect(responseIdIn(enc('data: {"id":42}'))).toBeNull();
    expect(responseIdIn(enc('data: {"id":"a\\"b"}'))).toBeNull();
    expect(responseIdIn(enc(': comment'))).toBeNull();
  });
});
