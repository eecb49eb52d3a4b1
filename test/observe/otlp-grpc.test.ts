/**
 * OTLP over gRPC and forwarding (`--otlp-receiver grpc://…`, `--otlp-forward`): the gRPC receiver's
 * answers to good and malformed payloads and to a port in use, a run against the simulated engine
 * exporting over real gRPC on 127.0.0.1 whose per-request breakdown equals the engine's ground
 * truth, and the forward queue (what it sends unchanged to a second local receiver standing in for
 * the user's collector, what it drops when full, what a failed collector costs).
 */
import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { encodeTraceProtobuf, type ReceivedSpan } from '../../src/util/otlp-spans.js';
import { otlpSender, parseOtlpEndpoint } from '../../src/util/otlp-transport.js';
import { startOtlpReceiver } from '../../src/observe/otlp/otlp-receiver.js';
import { OtlpForwarder } from '../../src/observe/otlp/otlp-forward.js';
import { parseOtlpListen } from '../../src/config/observe-spec.js';
import { startSimServer } from '../../src/sim/index.js';
import { percentile } from '../../src/metrics/stats.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

const T1 = '0af7651916cd43dd8448eb211c80319c';
const T2 = '1af7651916cd43dd8448eb211c80319c';

const span = (trace_id: string, attributes: ReceivedSpan['attributes'] = {}): ReceivedSpan => ({
  trace_id,
  span_id: 'b7ad6b7169203331',
  parent_span_id: '00f067aa0ba902b7',
  name: 'llm_request',
  start_unix_ns: '1764633600000000000',
  end_unix_ns: '1764633600500000000',
  attributes,
});

const grpcReceiver = async (warn: (l: string) => void = () => {}, opts = {}) => (await startOtlpReceiver({ host: '127.0.0.1', port: 0, protocol: 'grpc' }, warn, opts))!;

/** A port nothing listens on: bound, read, released. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('addresses', () => {
  it('--otlp-receiver: bare or http:// is OTLP/HTTP, grpc:// is OTLP/gRPC with 4317 by default', () => {
    expect(parseOtlpListen('4318')).toEqual({ host: '0.0.0.0', port: 4318, protocol: 'http' });
    expect(parseOtlpListen('http://127.0.0.1:4318')).toEqual({ host: '127.0.0.1', port: 4318, protocol: 'http' });
    expect(parseOtlpListen('grpc://127.0.0.1')).toEqual({ host: '127.0.0.1', port: 4317, protocol: 'grpc' });
    expect(parseOtlpListen('grpc://0.0.0.0:14317')).toEqual({ host: '0.0.0.0', port: 14317, protocol: 'grpc' });
    expect(parseOtlpListen('grpc://[::1]:4317')).toEqual({ host: '::1', port: 4317, protocol: 'grpc' });
    expect(() => parseOtlpListen('grpc://host:99999')).toThrow(/above 65535/);
    expect(() => parseOtlpListen('https://host:4318')).toThrow(/not https/);
    expect(() => parseOtlpListen('ftp://host:1')).toThrow(/expected a port/);
  });

  it('endpoints: a path-less http URL gets the signal path; grpc(s):// is gRPC; others refused', () => {
    expect(parseOtlpEndpoint('http://c:4318', 'traces')).toEqual({ protocol: 'http', target: 'http://c:4318/v1/traces', tls: false });
    expect(parseOtlpEndpoint('https://c/otlp/v1/metrics', 'metrics')).toEqual({ protocol: 'http', target: 'https://c/otlp/v1/metrics', tls: true });
    expect(parseOtlpEndpoint('grpc://c', 'traces')).toEqual({ protocol: 'grpc', target: 'c:4317', tls: false });
    expect(parseOtlpEndpoint('grpcs://c:443', 'metrics')).toEqual({ protocol: 'grpc', target: 'c:443', tls: true });
    expect(() => parseOtlpEndpoint('grpc://c:4317/v1/traces', 'traces')).toThrow(/no path/);
    expect(() => parseOtlpEndpoint('udp://c:1', 'traces')).toThrow(/is not http, https, grpc or grpcs/);
    expect(() => parseOtlpEndpoint('c:4317', 'traces')).toThrow();
  });

  it('a bad --otlp-receiver or --otlp-forward is one line and exit 2; --otlp-forward alone is refused', async () => {
    for (const args of [
      ['--otlp-receiver', 'grpc://h:70000'],
      ['--otlp-receiver', '127.0.0.1:4318', '--otlp-forward', 'tcp://c:4317'],
      ['--otlp-forward', 'http://127.0.0.1:4318'],
      ['--otlp-metrics', 'grpc://c:4317/v1/metrics'],
    ]) {
      const out = await runCli(['run', '--num-prompts', '1', '--no-save', ...args]);
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    const sim = await runCli(['sim', 'serve', '--port', '0', '--otlp-traces-endpoint', 'tcp://c:4317']);
    expect(sim.code).toBe(2);
    expect(sim.stderr.trim()).toMatch(/^error: --otlp-traces-endpoint: "tcp:\/\/c:4317": scheme tcp: is not http, https, grpc or grpcs$/);
  });
});

describe('the gRPC receiver', () => {
  it('accepts an Export as a collector does; a malformed one is INVALID_ARGUMENT, counted, one warning', async () => {
    const warnings: string[] = [];
    const r = await grpcReceiver((l) => warnings.push(l));
    const sender = otlpSender(r.endpoint, 'traces');
    try {
      expect(r.url).toMatch(/^grpc:\/\/127\.0\.0\.1:\d+$/);
      await sender.send(encodeTraceProtobuf([span(T1, { a: 1 }), span(T2)], 't'), 5000);
      for (let i = 0; i < 2; i++) await expect(sender.send(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), 5000)).rejects.toThrow(/INVALID_ARGUMENT: not an OTLP protobuf trace request/);
      expect(r.spans().map((s) => s.trace_id)).toEqual([T1, T2]);
      expect(r.spans()[0]!.attributes).toEqual({ a: 1 });
      expect(r.malformed).toBe(2);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^--otlp-receiver: refused a trace payload: not an OTLP protobuf trace request/);
    } finally {
      sender.close();
      await r.close();
    }
  });

  it('a port in use is one warning and no receiver', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    const warnings: string[] = [];
    // grpc-js's own logger writes to console.error: the library must not print
    const printed = vi.spyOn(console, 'error');
    try {
      expect(await startOtlpReceiver({ host: '127.0.0.1', port, protocol: 'grpc' }, (l) => warnings.push(l))).toBeNull();
      expect(printed).not.toHaveBeenCalled();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^--otlp-receiver grpc://127\\.0\\.0\\.1:${port}: cannot listen \\(EADDRINUSE\\); the run goes on without traces$`));
    } finally {
      printed.mockRestore();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  });
});

describe('--otlp-forward', () => {
  it('everything accepted over gRPC reaches a second receiver (the collector) unchanged, over HTTP and gRPC', async () => {
    for (const protocol of ['http', 'grpc'] as const) {
      const collector = (await startOtlpReceiver({ host: '127.0.0.1', port: 0, protocol }, () => {}))!;
      const forward = new OtlpForwarder(collector.endpoint.replace(/\/v1\/traces$/, ''), () => {});
      const r = await grpcReceiver(() => {}, { forward });
      const sender = otlpSender(r.endpoint, 'traces');
      try {
        await sender.send(encodeTraceProtobuf([span(T1, { 'gen_ai.latency.e2e': 0.5 })], 't'), 5000);
        await sender.send(encodeTraceProtobuf([span(T2)], 't'), 5000);
        expect(await forward.close()).toEqual({ url: forward.figures().url, protocol, payloads_forwarded: 2, payloads_dropped: 0, payloads_failed: 0, queue_limit: 512 });
        expect(collector.spans()).toEqual(r.spans());
      } finally {
        sender.close();
        await r.close();
        await collector.close();
      }
    }
  });

  it('OTLP/JSON received over HTTP goes on as JSON to an HTTP collector, re-encoded for a gRPC one', async () => {
    for (const protocol of ['http', 'grpc'] as const) {
      const collector = (await startOtlpReceiver({ host: '127.0.0.1', port: 0, protocol }, () => {}))!;
      const forward = new OtlpForwarder(collector.endpoint, () => {});
      const r = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, () => {}, { forward }))!;
      try {
        const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: T1, spanId: 'b7ad6b7169203331', name: 'llm_request', startTimeUnixNano: '1', endTimeUnixNano: '2', attributes: [{ key: 'k', value: { intValue: '7' } }] }] }] }] });
        expect((await fetch(r.endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).status).toBe(200);
        expect((await forward.close()).payloads_forwarded).toBe(1);
        expect(collector.spans()).toEqual(r.spans());
        expect(collector.spans()[0]!.attributes).toEqual({ k: 7 });
      } finally {
        await r.close();
        await collector.close();
      }
    }
  });

  it('a full queue drops and counts, never blocking the receiver; a dead collector is one warning, failures counted', async () => {
    // The first offer is taken off the queue at once (in flight); with room for 2 more, 2 of 5 are dropped.
    const collector = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, () => {}))!;
    const warnings: string[] = [];
    const forward = new OtlpForwarder(collector.endpoint, (l) => warnings.push(l), { payloads: 2, bytes: 1 << 20, timeoutMs: 5000 });
    const payload = encodeTraceProtobuf([span(T1)], 't');
    for (let i = 0; i < 5; i++) forward.offer(payload, false, []);
    const f = await forward.close();
    await collector.close();
    expect(f).toMatchObject({ payloads_forwarded: 3, payloads_dropped: 2, payloads_failed: 0, queue_limit: 2 });
    expect(collector.spans()).toHaveLength(3);
    expect(warnings).toEqual([`--otlp-forward: the queue is full (at most 2 payloads) before ${collector.endpoint} took every payload; payloads dropped (counted in the result)`]);

    const dead = `grpc://127.0.0.1:${await freePort()}`;
    const lines: string[] = [];
    const down = new OtlpForwarder(dead, (l) => lines.push(l), { payloads: 8, bytes: 1 << 20, timeoutMs: 5000 });
    for (let i = 0; i < 3; i++) down.offer(payload, false, []);
    expect(await down.close(20_000)).toMatchObject({ payloads_forwarded: 0, payloads_dropped: 0, payloads_failed: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^--otlp-forward: cannot forward spans to ${dead.replace(/\./g, '\\.')} \\(gRPC UNAVAILABLE: .*\\); the run goes on, failures counted in the result$`));
  }, 30_000);
});

describe('run --otlp-receiver grpc:// against the simulated engine exporting over gRPC', () => {
  it("matches every request to its span, the breakdown is the engine's ground truth, and the forward reached the collector", async () => {
    const port = await freePort();
    const collector = (await startOtlpReceiver({ host: '127.0.0.1', port: 0 }, () => {}))!;
    const sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, collectGroundTruth: true, otlpTracesEndpoint: `grpc://127.0.0.1:${port}` });
    try {
      const out = await runCli([
        'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '40', '--request-rate', '40',
        '--random-input-len', '256', '--random-output-len', '8', '--otlp-receiver', `grpc://127.0.0.1:${port}`, '--otlp-forward', collector.url,
        '--no-save', '--json', '--progress', 'none', '--allow-invalid', '--no-metrics',
      ]);
      expect([0, 5]).toContain(out.code);
      const t = (JSON.parse(out.stdout) as RunResult).traces!;
      expect(t).toMatchObject({ requests: 40, matched: 40, unmatched: { no_span: 0, no_timings: 0 }, payloads_refused: 0 });
      const truth = sim.groundTruth.filter((g) => g.completed);
      expect(truth).toHaveLength(40);
      const sorted = (xs: number[]) => Float64Array.from(xs).sort();
      const queue = sorted(truth.map((g) => g.admitted_ms! - g.arrival_ms));
      const prefill = sorted(truth.map((g) => g.token_ms[0]! - g.admitted_ms!));
      for (const p of [50, 90, 99] as const) {
        expect(t.components.queue_ms[`p${p}`]).toBeCloseTo(percentile(queue, p), 6);
        expect(t.components.prefill_ms[`p${p}`]).toBeCloseTo(percentile(prefill, p), 6);
      }
      // every payload the receiver took went on to the collector
      expect(t.forward).toMatchObject({ protocol: 'http', payloads_dropped: 0, payloads_failed: 0 });
      expect(t.forward!.payloads_forwarded).toBeGreaterThan(0);
      expect(collector.spans()).toHaveLength(t.spans_received);
    } finally {
      await sim.close();
      await collector.close();
    }
  }, 60_000);
});
