/**
 * `--otlp-metrics`: the client's metrics as OTLP metrics — hand-computed sums, gauges and
 * per-bucket histogram counts decoded back with the vendored metrics definitions, and a run whose
 * final push, received by a local OTLP/HTTP metrics receiver, counts what the run's records count.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClientMetrics } from '../../src/session/client-metrics.js';
import { encodeClientMetrics } from '../../src/session/client-metrics-otlp.js';
import { otlpProtoType } from '../../src/util/otlp-spans.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { rec } from '../metrics/make-record.js';

interface Point {
  attributes?: Array<{ key: string; value: { stringValue: string } }>;
  asDouble?: number;
  count?: string;
  sum?: number;
  bucketCounts?: string[];
  explicitBounds?: number[];
  startTimeUnixNano?: string;
  timeUnixNano?: string;
}
interface Metric {
  name: string;
  unit?: string;
  sum?: { dataPoints: Point[]; isMonotonic: boolean; aggregationTemporality: number };
  gauge?: { dataPoints: Point[] };
  histogram?: { dataPoints: Point[]; aggregationTemporality: number };
}

function decode(bytes: Uint8Array): { metrics: Metric[]; resource: Record<string, string> } {
  const T = otlpProtoType('opentelemetry/proto/collector/metrics/v1/metrics_service.proto', 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest');
  const obj = T.toObject(T.decode(bytes), { longs: String, enums: Number }) as {
    resourceMetrics: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue: string } }> }; scopeMetrics: Array<{ metrics: Metric[] }> }>;
  };
  const rm = obj.resourceMetrics[0]!;
  return { metrics: rm.scopeMetrics.flatMap((s) => s.metrics), resource: Object.fromEntries(rm.resource.attributes.map((a) => [a.key, a.value.stringValue])) };
}

const attrs = (p: Point) => Object.fromEntries((p.attributes ?? []).map((a) => [a.key, a.value.stringValue]));
const point = (ms: Metric[], name: string, labels: Record<string, string> = {}): Point | undefined => {
  const m = ms.find((x) => x.name === name);
  const pts = m?.sum?.dataPoints ?? m?.gauge?.dataPoints ?? m?.histogram?.dataPoints ?? [];
  return pts.find((p) => Object.entries(labels).every(([k, v]) => attrs(p)[k] === v));
};

describe('the client metrics as OTLP', () => {
  it('counters are cumulative monotonic sums, gauges gauges, histograms per-bucket counts (hand-computed)', async () => {
    const m = new ClientMetrics();
    // TTFT 100 ms and 300 ms; one failed request; a warm-up
    m.record(rec({ sent_ms: 0, chunks: [100, 150, 200] }));
    m.record(rec({ sent_ms: 1000, chunks: [1300] }));
    m.record(rec({ sent_ms: 2000, end_ms: 2010, status: 'error', error_class: 'http_5xx' }));
    m.record(rec({ phase: 'warmup', sent_ms: 0, chunks: [5000] }));
    m.progress({ elapsed_ms: 3000, total: 4, duration_ms: null, sent: 4, done: 4, ok: 3, failed: 1, inflight: 2, queued: 1, output_tokens: 5, lag_max_ms: 12, busy: 0.25 });
    const { metrics, resource } = decode(await encodeClientMetrics(m, '1000', '2000'));
    expect(resource['service.name']).toBe('infermeter');
    const req = metrics.find((x) => x.name === 'infermeter_requests_total')!;
    expect(req.sum).toMatchObject({ isMonotonic: true, aggregationTemporality: 2 });
    expect(point(metrics, 'infermeter_requests_total', { phase: 'measure', status: 'ok' })).toMatchObject({ asDouble: 2, startTimeUnixNano: '1000', timeUnixNano: '2000' });
    expect(point(metrics, 'infermeter_requests_total', { phase: 'measure', status: 'error' })!.asDouble).toBe(1);
    expect(point(metrics, 'infermeter_requests_total', { phase: 'warmup', status: 'ok' })!.asDouble).toBe(1);
    expect(point(metrics, 'infermeter_request_errors_total', { error_class: 'http_5xx' })!.asDouble).toBe(1);
    expect(metrics.find((x) => x.name === 'infermeter_requests_in_flight')!.gauge!.dataPoints[0]!.asDouble).toBe(2);
    expect(point(metrics, 'infermeter_dispatch_lag_max_seconds')!.asDouble).toBeCloseTo(0.012, 12);
    const ttft = metrics.find((x) => x.name === 'infermeter_ttft_seconds')!;
    expect(ttft.unit).toBe('s');
    expect(ttft.histogram!.aggregationTemporality).toBe(2);
    const h = ttft.histogram!.dataPoints[0]!;
    expect(h.count).toBe('2');
    expect(h.sum).toBeCloseTo(0.4, 12);
    // bounds 0.001 … 2560 (22) and one +Inf bucket; 0.1 s falls in (0.08, 0.1], 0.3 s in (0.25, 0.5]
    expect(h.explicitBounds).toHaveLength(22);
    expect(h.bucketCounts).toHaveLength(23);
    const at = (bound: number) => Number(h.bucketCounts![h.explicitBounds!.indexOf(bound)]);
    expect(at(0.1)).toBe(1);
    expect(at(0.5)).toBe(1);
    expect(h.bucketCounts!.reduce((a, b) => a + Number(b), 0)).toBe(2);
  });
});

describe('run --otlp-metrics', () => {
  it("the last push a local OTLP/HTTP receiver gets counts the run's records", async () => {
    const pushes: Uint8Array[] = [];
    const app = new Hono();
    app.post('/v1/metrics', async (c) => {
      expect(c.req.header('content-type')).toBe('application/x-protobuf');
      pushes.push(new Uint8Array(await c.req.arrayBuffer()));
      return c.body(new Uint8Array(0), 200, { 'Content-Type': 'application/x-protobuf' });
    });
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await runCli([
        'run', '--num-prompts', '30', '--request-rate', '60', '--random-input-len', '32', '--random-output-len', '8', '--warmup', '2',
        '--otlp-metrics', `http://127.0.0.1:${port}`, '--no-save', '--json', '--progress', 'none', '--allow-invalid', '--no-metrics', '--no-capacity-check',
      ]);
      expect([0, 5]).toContain(out.code);
      const result = JSON.parse(out.stdout) as RunResult;
      expect(pushes.length).toBeGreaterThanOrEqual(1);
      const { metrics } = decode(pushes.at(-1)!);
      const ok = result.metrics.requests.ok;
      // 30 prompts, the first 2 of them the warm-up
      expect(ok).toBe(28);
      expect(point(metrics, 'infermeter_requests_total', { phase: 'measure', status: 'ok' })!.asDouble).toBe(ok);
      expect(point(metrics, 'infermeter_requests_total', { phase: 'warmup', status: 'ok' })!.asDouble).toBe(2);
      expect(point(metrics, 'infermeter_ttft_seconds')!.count).toBe(String(result.metrics.latency.ttft_ms.count));
      expect(point(metrics, 'infermeter_output_tokens_total')!.asDouble).toBe(result.metrics.tokens.output_total);
    } finally {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);
});
