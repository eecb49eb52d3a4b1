/**
 * The client's own metrics (`--metrics-port`): hand-computed counts and buckets over a few
 * records, histogram counts equal to the run's distributions of the same registry metrics, and
 * the text read back with the project's exposition parser.
 */
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/compute.js';
import { ClientMetrics, histogramName } from '../../src/session/client-metrics.js';
import { parseExposition, type Sample } from '../../src/observe/exposition.js';
import { parseMetricsListen } from '../../src/config/observe-spec.js';
import { rec } from '../metrics/make-record.js';

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe('ClientMetrics', () => {
  const records = [
    // TTFT 100 ms, 3 chunks 50 ms apart: ITL gaps 50, 50; TPOT (200 − 100) / 2 = 50 ms; E2EL 200 ms
    rec({ sent_ms: 0, chunks: [100, 150, 200] }),
    // TTFT 300 ms, one chunk
    rec({ sent_ms: 1000, chunks: [1300] }),
    rec({ sent_ms: 2000, end_ms: 2010, status: 'error', error_class: 'http_5xx' }),
    rec({ sent_ms: 2500, end_ms: 2600, status: 'error', error_class: 'http_5xx', retried: true }),
    rec({ phase: 'warmup', sent_ms: 0, chunks: [5000] }),
  ];

  it('counts outcomes by phase and status, retries apart, and observes the measure phase only', async () => {
    const m = new ClientMetrics();
    for (const r of records) m.record(r);
    m.progress({ elapsed_ms: 3000, total: 5, duration_ms: null, sent: 5, done: 5, ok: 3, failed: 2, inflight: 2, queued: 1, output_tokens: 5, lag_max_ms: 12, busy: 0.25 });
    const { samples, malformed } = parseExposition(await m.text());
    expect(malformed).toBe(0);
    expect(value(samples, 'infermeter_requests_total', { phase: 'measure', status: 'ok' })).toBe(2);
    expect(value(samples, 'infermeter_requests_total', { phase: 'measure', status: 'error' })).toBe(1);
    expect(value(samples, 'infermeter_requests_total', { phase: 'warmup', status: 'ok' })).toBe(1);
    expect(value(samples, 'infermeter_request_errors_total', { error_class: 'http_5xx' })).toBe(1);
    expect(value(samples, 'infermeter_request_retries_total')).toBe(1);
    expect(value(samples, 'infermeter_output_tokens_total')).toBe(4);
    expect(value(samples, 'infermeter_requests_in_flight')).toBe(2);
    expect(value(samples, 'infermeter_requests_queued')).toBe(1);
    expect(value(samples, 'infermeter_dispatch_lag_max_seconds')).toBeCloseTo(0.012, 12);
    expect(value(samples, 'infermeter_client_busy_ratio')).toBe(0.25);
    // TTFT 0.1 s and 0.3 s: le=0.1 holds one, le=0.25 still one, le=0.5 both
    expect(value(samples, 'infermeter_ttft_seconds_bucket', { le: '0.1' })).toBe(1);
    expect(value(samples, 'infermeter_ttft_seconds_bucket', { le: '0.25' })).toBe(1);
    expect(value(samples, 'infermeter_ttft_seconds_bucket', { le: '0.5' })).toBe(2);
    expect(value(samples, 'infermeter_ttft_seconds_sum')).toBeCloseTo(0.4, 12);
    // ITL: the two 50 ms gaps of the first request
    expect(value(samples, 'infermeter_itl_seconds_count')).toBe(2);
    expect(value(samples, 'infermeter_itl_seconds_bucket', { le: '0.05' })).toBe(2);
    expect(value(samples, 'infermeter_tpot_seconds_count')).toBe(1);
    expect(value(samples, 'infermeter_tpot_seconds_sum')).toBeCloseTo(0.05, 12);
  });

  it("each histogram's count is the count of the run's distribution of the same metric", async () => {
    const m = new ClientMetrics();
    for (const r of records) m.record(r);
    const { samples } = parseExposition(await m.text());
    const run = computeMetrics(records);
    for (const [id, dist] of Object.entries(run.latency)) {
      expect(value(samples, `${histogramName(id)}_count`), id).toBe(dist.count);
    }
  });

  it('two instances keep separate counters (no global registry)', async () => {
    const a = new ClientMetrics();
    const b = new ClientMetrics();
    a.record(records[0]!);
    expect(value(parseExposition(await b.text()).samples, 'infermeter_requests_total', { phase: 'measure', status: 'ok' })).toBeUndefined();
  });
});

describe('--metrics-port addresses', () => {
  it('a bare port listens everywhere; HOST:PORT and [v6]:PORT as given; others are refused', () => {
    expect(parseMetricsListen('9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsListen(9464)).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseMetricsListen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(() => parseMetricsListen('70000')).toThrow(/above 65535/);
    expect(() => parseMetricsListen('http://x:1')).toThrow(/expected a port/);
    expect(() => parseMetricsListen('host:')).toThrow(/expected a port/);
  });
});
