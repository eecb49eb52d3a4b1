/**
 * Traces joined to records (`--otlp-receiver`): the OTLP codec (protobuf from the official
 * definitions, OTLP/JSON), the join by trace id with hand-computed figures, the receiver's answers
 * to good and malformed payloads, and a run against the simulated engine over real HTTP whose
 * per-request breakdown equals the engine's own ground truth.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { collectTraces } from '../../src/session/collect-traces.js';
import { spansFileLines } from '../../src/store/spans-file.js';
import { decodeTraceJson, decodeTraceProtobuf, encodeTraceJson, encodeTraceProtobuf, PayloadError, type ReceivedSpan } from '../../src/util/otlp-spans.js';
import { joinTraces, tracesLine } from '../../src/observe/otlp/trace-join.js';
import { slowestLine } from '../../src/report/traces-summary.js';
import { overTimeRows, slowestRows } from '../../src/report/charts/trace-charts.js';
import { startOtlpReceiver } from '../../src/observe/otlp/otlp-receiver.js';
import { startSimServer } from '../../src/sim/index.js';
import { percentile } from '../../src/metrics/stats.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { rec } from '../metrics/make-record.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/otlp/collector-file-exporter.jsonl', import.meta.url));
const T1 = '0af7651916cd43dd8448eb211c80319c';
const T2 = '1af7651916cd43dd8448eb211c80319c';
const T3 = '2af7651916cd43dd8448eb211c80319c';

const span = (trace_id: string, attributes: ReceivedSpan['attributes']): ReceivedSpan => ({
  trace_id,
  span_id: 'b7ad6b7169203331',
  parent_span_id: '00f067aa0ba902b7',
  name: 'llm_request',
  start_unix_ns: '1764633600000000000',
  end_unix_ns: '1764633600500000000',
  attributes,
});

describe('OTLP spans', () => {
  it('protobuf round trip through the official definitions keeps ids, 64-bit times and attributes', () => {
    const s = span(T1, { 'gen_ai.latency.time_in_queue': 0.0125, 'gen_ai.usage.prompt_tokens': 512, 'gen_ai.response.model': 'm', flag: true });
    const bytes = encodeTraceProtobuf([s], 'test');
    expect(decodeTraceProtobuf(bytes)).toEqual([s]);
  });

  it('reads OTLP/JSON: hex ids, intValue as a string, doubleValue; refuses what is not a trace request', () => {
    const body = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: T1.toUpperCase(), spanId: 'b7ad6b7169203331', name: 'llm_request', startTimeUnixNano: '1764633600000000000', endTimeUnixNano: '1764633600500000000', attributes: [{ key: 'gen_ai.usage.prompt_tokens', value: { intValue: '512' } }, { key: 'gen_ai.latency.e2e', value: { doubleValue: 0.5 } }] }] }] }],
    });
    expect(decodeTraceJson(body)).toEqual([{ ...span(T1, { 'gen_ai.usage.prompt_tokens': 512, 'gen_ai.latency.e2e': 0.5 }), parent_span_id: null }]);
    expect(() => decodeTraceJson('{not json')).toThrow(PayloadError);
    expect(() => decodeTraceJson('{"resourceSpans": 3}')).toThrow(/not a list/);
    expect(() => decodeTraceJson(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'abc' }] }] }] }))).toThrow(/not 16 bytes/);
    expect(() => decodeTraceProtobuf(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f]))).toThrow(PayloadError);
  });
});

describe('joinTraces (hand-computed)', () => {
  // Three traced ok requests (client TTFT 100, 300, 200 ms), one failed, one without a span.
  const records = [
    rec({ sent_ms: 0, chunks: [100, 150], trace_id: T1 }),
    rec({ sent_ms: 0, chunks: [300, 320], trace_id: T2 }),
    rec({ sent_ms: 0, chunks: [200, 260], trace_id: T3 }),
    rec({ sent_ms: 0, end_ms: 10, status: 'error', error_class: 'http_5xx', trace_id: '3af7651916cd43dd8448eb211c80319c' }),
    rec({ sent_ms: 0, chunks: [50], trace_id: '4af7651916cd43dd8448eb211c80319c' }),
  ];
  const spans = [
    span(T1, { 'gen_ai.latency.time_in_queue': 0.01, 'gen_ai.latency.time_in_model_prefill': 0.05, 'gen_ai.latency.time_to_first_token': 0.06, 'gen_ai.latency.time_in_model_decode': 0.04 }),
    // T2: the slowest; a gateway span without timings comes first in its trace
    span(T2, { 'http.route': '/v1/completions' }),
    span(T2, { 'gen_ai.latency.time_in_queue': 0.2, 'gen_ai.latency.time_in_model_prefill': 0.06, 'gen_ai.latency.time_to_first_token': 0.26, 'gen_ai.latency.time_in_model_decode': 0.02 }),
    // T3: a span without any timing attribute
    span(T3, { 'http.route': '/v1/completions' }),
    span('ffffffffffffffffffffffffffffffff', { 'gen_ai.latency.time_in_queue': 1 }),
  ];

  it('matches by trace id, counts why the rest did not, and splits the slowest request', () => {
    const { figures, joined } = joinTraces(records, spans);
    expect(figures).toMatchObject({ spans_received: 5, requests: 4, matched: 2, unmatched: { no_span: 1, no_timings: 1 }, spans_unmatched: 1 });
    expect(joined.map((j) => j.id)).toEqual([records[0]!.id, records[1]!.id]);
    // network + client = client TTFT − server TTFT: 100 − 60 = 40, 300 − 260 = 40
    expect(joined[0]!.timings.network_client_ms).toBeCloseTo(40, 9);
    expect(joined[1]!.timings.network_client_ms).toBeCloseTo(40, 9);
    // queue 10 and 200: p50 = 105, p99 = 10 + 0.99·190 = 198.1
    expect(figures.components.queue_ms.p50).toBeCloseTo(105, 9);
    expect(figures.components.queue_ms.p99).toBeCloseTo(198.1, 9);
    // slowest 1% of 2 = 1 request (T2, TTFT 300): 200/300 queued, 60/300 prefill, 40/300 outside
    expect(figures.slowest!.requests).toBe(1);
    expect(figures.slowest!.queue_share).toBeCloseTo(2 / 3, 9);
    expect(figures.slowest!.prefill_share).toBeCloseTo(0.2, 9);
    expect(figures.slowest!.network_client_share).toBeCloseTo(40 / 300, 9);
    expect(tracesLine(figures)).toContain('traces: 2/4 requests matched to a server span (1 without a span, 1 with a span but no timings)');
    expect(tracesLine(figures)).toContain('67% queued, 20% prefill, 13% network+client');
  });
});

describe('joinTraces: the slowest requests one by one, and the components over the run (hand-computed)', () => {
  // Sent at 0, 1000.0004 and 1500 ms (the second's times at records.jsonl's 1 µs: 1000.0004 → 1000);
  // client TTFT 100, 300 and 200 ms; one more ok request without a trace id.
  const A = 'a0000000000000000000000000000000';
  const B = 'b0000000000000000000000000000000';
  const C = 'c0000000000000000000000000000000';
  const records = [
    rec({ sent_ms: 0, chunks: [100, 150], trace_id: A }),
    rec({ sent_ms: 1000.0004, chunks: [1300.0004, 1320], trace_id: B }),
    rec({ sent_ms: 1500, chunks: [1700, 1760], trace_id: C }),
    rec({ sent_ms: 1600, chunks: [1650] }),
  ];
  const timing = (q: number, p: number, ttft: number, d: number) => ({ 'gen_ai.latency.time_in_queue': q, 'gen_ai.latency.time_in_model_prefill': p, 'gen_ai.latency.time_to_first_token': ttft, 'gen_ai.latency.time_in_model_decode': d });
  const spans = [span(A, timing(0.01, 0.05, 0.07, 0.04)), span(B, timing(0.2, 0.06, 0.26, 0.02)), span(C, timing(0.1, 0.05, 0.15, 0.06))];
  // Two 1-second windows: A in the first, B and C in the second.
  const windows = { width_s: 1, count: 2, of: (t: number) => Math.min(1, Math.max(0, Math.floor(t / 1000))) };

  it('lists the matched requests slowest first, split, and averages each window', () => {
    const { figures } = joinTraces(records, spans, { windows, spansDropped: 3 });
    expect(figures.schema).toBe('infermeter.traces/2');
    expect(figures.unmatched).toEqual({ no_span: 0, no_timings: 0, no_trace_id: 1 });
    // 3 spans joined + 3 dropped by the file reader: received 6, all 3 dropped unmatched
    expect(figures).toMatchObject({ spans_received: 6, spans_unmatched: 3, matched: 3 });
    const r = figures.slowest_requests;
    expect(r.map((q) => q.id)).toEqual([records[1]!.id, records[2]!.id, records[0]!.id]);
    expect(r[0]!.sent_ms).toBe(1000);
    expect(r[0]!.client_ttft_ms).toBe(300);
    expect(r[0]!.queue_ms).toBeCloseTo(200, 9);
    expect(r[0]!.network_client_ms).toBeCloseTo(40, 9);
    // A: server TTFT 70 > queue 10 + prefill 50 (10 ms of other server time), network 30
    expect(r[2]).toMatchObject({ client_ttft_ms: 100 });
    expect(r[2]!.server_ttft_ms).toBeCloseTo(70, 9);
    expect(r[2]!.network_client_ms).toBeCloseTo(30, 9);
    const [w0, w1] = figures.over_time!.points;
    expect(figures.over_time!.window_s).toBe(1);
    expect(w0).toMatchObject({ t: 0, requests: 1 });
    expect(w0!.queue_ms).toBeCloseTo(10, 9);
    expect(w1).toMatchObject({ t: 1, requests: 2 });
    // B and C: queue (200 + 100) / 2, prefill (60 + 50) / 2, decode (20 + 60) / 2
    expect(w1!.queue_ms).toBeCloseTo(150, 9);
    expect(w1!.prefill_ms).toBeCloseTo(55, 9);
    expect(w1!.decode_ms).toBeCloseTo(40, 9);
    expect(tracesLine(figures)).toContain('1 request sent without a trace id');
    expect(slowestLine(figures)).toBe('p99 TTFT requests spent 67% queued (the slowest 1 of 3 by TTFT, mean 300.0 ms; 20% prefill, 13% network+client)');
  });

  it("the report's rows: one per drawn segment, other server time where the span's TTFT exceeds queue + prefill", () => {
    const { figures } = joinTraces(records, spans, { windows });
    const rows = slowestRows(figures);
    // B: queue, prefill, network, decode (no other time); C: the same; A: queue, prefill, other 10, network, decode
    expect(rows.map((x) => `${x.order}:${x.segment}`)).toEqual([
      '0:queue', '0:prefill', '0:network + client', '0:decode',
      '1:queue', '1:prefill', '1:network + client', '1:decode',
      '2:queue', '2:prefill', '2:other server', '2:network + client', '2:decode',
    ]);
    expect(rows.find((x) => x.order === 2 && x.segment === 'other server')!.ms).toBe(10);
    expect(overTimeRows(figures).map((x) => `${x.t}:${x.series}`)).toEqual(['0:queue', '0:prefill', '0:decode', '1:queue', '1:prefill', '1:decode']);
  });
});

describe('collectTraces: the receiver and a collector file together', () => {
  const records = [rec({ sent_ms: 0, chunks: [100, 150], trace_id: T1 }), rec({ sent_ms: 10, chunks: [310, 320], trace_id: T2 })];
  const timings = { 'gen_ai.latency.time_in_queue': 0.01, 'gen_ai.latency.time_to_first_token': 0.06 };
  const receiver = (got: ReceivedSpan[]) => ({ protocol: 'http' as const, url: '', endpoint: '', forward: null, spans: () => got, malformed: 1, waitFor: async () => {}, close: async () => {} });

  it('a span both delivered is counted once; the file’s other traces are counted, not kept', async () => {
    const both = span(T1, timings);
    const file = join(tempDir('collect-traces'), 'collector.jsonl');
    writeFileSync(file, `${JSON.stringify(spansFileLines([both, { ...span(T2, timings), span_id: 'c7ad6b7169203331' }, span(T3, timings)])[0])}\n`);
    const log: string[] = [];
    const { figures, spans } = await collectTraces({ receiver: receiver([both]), spansFile: file }, { flushSpans: async () => {} }, records, 0, (l) => log.push(l));
    expect(spans.map((s) => s.trace_id)).toEqual([T1, T2]);
    expect(figures).toMatchObject({ spans_received: 3, matched: 2, spans_unmatched: 1, payloads_refused: 1 });
    // T2's span came only in the file: the receiver waited for it first
    expect(log).toEqual(["waiting up to 0 s for the server's last spans (--otlp-wait)"]);
  });

  it('a --spans file not there (yet) is one line and the join goes on without it', async () => {
    const log: string[] = [];
    const missing = join(tempDir('collect-traces'), 'later.jsonl');
    const { figures } = await collectTraces({ receiver: null, spansFile: missing }, { flushSpans: async () => {} }, records, 0, (l) => log.push(l));
    expect(figures).toMatchObject({ requests: 2, matched: 0, unmatched: { no_span: 2 } });
    expect(log).toEqual([`--spans ${missing}: no such file (yet?); the run's traces are joined without it (\`infermeter analyze RUN --spans ${missing}\` joins it later)`]);
  });
});

describe('the receiver', () => {
  it('answers protobuf and JSON as a collector does; a malformed payload is a 400 and one warning', async () => {
    const warnings: string[] = [];
    const r = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, (l) => warnings.push(l)))!;
    try {
      const pb = await fetch(`${r.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf' }, body: encodeTraceProtobuf([span(T1, { a: 1 })], 't') });
      expect(pb.status).toBe(200);
      expect(pb.headers.get('content-type')).toBe('application/x-protobuf');
      const js = await fetch(`${r.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ resourceSpans: [] }) });
      expect(await js.json()).toEqual({});
      for (let i = 0; i < 2; i++) {
        const bad = await fetch(`${r.url}/v1/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'nope' });
        expect(bad.status).toBe(400);
      }
      expect(r.spans().map((s) => s.trace_id)).toEqual([T1]);
      expect(r.malformed).toBe(2);
      expect(warnings).toEqual(['--otlp-receiver: refused a trace payload: not valid JSON']);
    } finally {
      await r.close();
    }
  });
});

describe('run --otlp-receiver against the simulated engine', () => {
  it("matches every request to its span; the breakdown is the engine's ground truth; analyze of the saved run gives the same figures exactly", async () => {
    const probe = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, () => {}))!;
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, collectGroundTruth: true, otlpTracesEndpoint: `http://127.0.0.1:${port}/v1/traces` });
    const results = tempDir('otlp-run');
    try {
      const out = await runCli([
        'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '40', '--request-rate', '40',
        '--random-input-len', '256', '--random-output-len', '8', '--otlp-receiver', `127.0.0.1:${port}`, '--result-dir', results, '--json', '--progress', 'none', '--allow-invalid', '--no-metrics',
      ]);
      expect([0, 5]).toContain(out.code);
      const t = (JSON.parse(out.stdout) as RunResult).traces!;
      expect(t).toMatchObject({ requests: 40, matched: 40, unmatched: { no_span: 0, no_timings: 0, no_trace_id: 0 }, payloads_refused: 0 });
      const truth = sim.groundTruth.filter((g) => g.completed);
      expect(truth).toHaveLength(40);
      const sorted = (xs: number[]) => Float64Array.from(xs).sort();
      const queue = sorted(truth.map((g) => g.admitted_ms! - g.arrival_ms));
      const prefill = sorted(truth.map((g) => g.token_ms[0]! - g.admitted_ms!));
      for (const p of [50, 90, 99] as const) {
        expect(t.components.queue_ms[`p${p}`]).toBeCloseTo(percentile(queue, p), 6);
        expect(t.components.prefill_ms[`p${p}`]).toBeCloseTo(percentile(prefill, p), 6);
      }
      // the client cannot see its first token before the server produced it
      expect(t.components.network_client_ms.p50!).toBeGreaterThanOrEqual(0);
      // the 20 slowest, one by one: each one's queue is one of the engine's own queue times
      expect(t.slowest_requests).toHaveLength(20);
      for (const q of t.slowest_requests) expect(Math.min(...queue.map((g) => Math.abs(g - q.queue_ms!)))).toBeLessThan(1e-6);
      expect(t.over_time!.points.reduce((a, p) => a + p.requests, 0)).toBe(40);

      // analyze re-joins the saved spans.jsonl with records.jsonl: the same figures, to the last digit
      const dir = join(results, readdirSync(results).find((d) => !d.startsWith('.') && d !== 'history.duckdb' && !d.endsWith('.jsonl'))!);
      expect(readFileSync(join(dir, 'spans.jsonl'), 'utf8').split('\n')[0]).toMatch(/^\{"resourceSpans":\[\{"resource":\{"attributes":\[\{"key":"infermeter.schema"/);
      // (result.json's own traces block removed first: what analyze prints is its own join)
      const resultText = readFileSync(join(dir, 'result.json'), 'utf8');
      const saved = JSON.parse(resultText) as Record<string, unknown>;
      expect(saved.traces).toEqual(t);
      delete saved.traces;
      writeFileSync(join(dir, 'result.json'), JSON.stringify(saved));
      const again = await runCli(['analyze', dir, '--json']);
      expect([0, 5]).toContain(again.code);
      expect((JSON.parse(again.stdout) as RunResult).traces).toEqual(t);
      writeFileSync(join(dir, 'result.json'), resultText);
      // the summary's headline, in the console and the Markdown
      const text = await runCli(['analyze', dir]);
      expect(text.stdout).toContain(`p99 TTFT requests spent ${Math.round(t.slowest!.queue_share! * 100)}% queued (the slowest 1 of 40 by TTFT`);
      const md = await runCli(['export', dir, '--format', 'markdown', '--out-dir', join(results, 'md')]);
      expect(md.code, md.stderr).toBe(0);
      const mdFile = readdirSync(join(results, 'md')).find((f) => f.endsWith('.md'))!;
      expect(readFileSync(join(results, 'md', mdFile), 'utf8')).toContain('**Traces** (40 of 40 requests matched to a server span): p99 TTFT requests spent');

      // --spans FILE: a collector's file with the same spans, another service's and a cut line
      const collector = join(results, 'collector.jsonl');
      writeFileSync(collector, `${readFileSync(join(dir, 'spans.jsonl'), 'utf8')}${readFileSync(FIXTURE, 'utf8')}`);
      const fromFile = (JSON.parse((await runCli(['analyze', dir, '--spans', collector, '--json'])).stdout) as RunResult).traces!;
      expect(fromFile).toEqual({ ...t, spans_received: t.spans_received + 3, spans_unmatched: t.spans_unmatched + 3, payloads_refused: 2 });
      const missing = await runCli(['analyze', dir, '--spans', join(results, 'absent.jsonl')]);
      expect(missing.code).toBe(2);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toContain('absent.jsonl: no such file');
    } finally {
      await sim.close();
    }
  }, 120_000);
});

describe('run --spans FILE: the spans a collector wrote with its file exporter', () => {
  it('joins the requests from the file alone, with no receiver of its own; analyze --spans joins all once the collector flushed', async () => {
    // A stand-in collector: OTLP/HTTP protobuf in, one OTLP/JSON line per export request out (the file exporter).
    const results = tempDir('otlp-collector');
    const file = join(results, 'collector-spans.jsonl');
    writeFileSync(file, '');
    const collector = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        appendFileSync(file, `${JSON.stringify(encodeTraceJson(decodeTraceProtobuf(Buffer.concat(parts)), { 'service.name': 'vllm' }))}\n`);
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const port = (collector.address() as AddressInfo).port;
    const sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, otlpTracesEndpoint: `http://127.0.0.1:${port}/v1/traces` });
    let closed = false;
    try {
      const out = await runCli([
        'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '30', '--request-rate', '40',
        '--random-input-len', '128', '--random-output-len', '4', '--spans', file, '--result-dir', results, '--json', '--progress', 'none', '--allow-invalid', '--no-metrics',
      ]);
      expect([0, 5]).toContain(out.code);
      // The server exports every 200 ms: the file may not hold the last batch yet when the run reads it.
      const t = (JSON.parse(out.stdout) as RunResult).traces!;
      expect(t).toMatchObject({ requests: 30, unmatched: { no_trace_id: 0, no_timings: 0 }, payloads_refused: 0 });
      expect(t.matched + t.unmatched.no_span).toBe(30);
      expect(t.matched).toBeGreaterThan(0);
      // Once the server has flushed its exporter (closing it does), analyze --spans joins every request.
      await sim.close();
      closed = true;
      const dir = join(results, readdirSync(results).find((d) => /^\d{8}-/.test(d))!);
      const later = (JSON.parse((await runCli(['analyze', dir, '--spans', file, '--json'])).stdout) as RunResult).traces!;
      expect(later).toMatchObject({ requests: 30, matched: 30, unmatched: { no_span: 0, no_timings: 0, no_trace_id: 0 }, spans_unmatched: 0, payloads_refused: 0 });
    } finally {
      if (!closed) await sim.close();
      collector.close();
    }
  }, 120_000);
});
