/**
 * `--otlp-metrics URL`: the client's live metrics (client-metrics.ts, the same registry
 * `--metrics-port` serves) pushed as OTLP metrics, for a stack that is OpenTelemetry rather than
 * Prometheus (docs/observe.md §The client's own metrics).
 *
 * Every PUSH_INTERVAL_MS and once more when the measured load has ended, the prom-client registry
 * is read (`getMetricsAsJSON`) and written as one ExportMetricsServiceRequest from the vendored
 * opentelemetry-proto definitions (proto/), sent over OTLP/HTTP protobuf or OTLP/gRPC
 * (util/otlp-transport.ts). The names are the Prometheus ones, so a dashboard reads the same series
 * either way. Counters become cumulative monotonic sums, gauges gauges, histograms cumulative
 * explicit-bucket histograms (prom-client's cumulative `le` counts turned into per-bucket counts,
 * the +Inf bucket last). Labels become attributes. A push that fails is one warning line (the first)
 * and counted; the run goes on. A push never overlaps the previous one.
 */
import { infermeterVersion } from '../util/package-version.js';
import { otlpProtoType } from '../util/otlp-spans.js';
import { otlpSender, type OtlpSender } from '../util/otlp-transport.js';
import { redactUrl } from '../util/redact.js';
import type { ClientMetrics } from './client-metrics.js';

export const PUSH_INTERVAL_MS = 10_000;
const PUSH_TIMEOUT_MS = 10_000;

const CUMULATIVE = 2; // AGGREGATION_TEMPORALITY_CUMULATIVE

interface PromValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}
interface PromMetric {
  name: string;
  help: string;
  type: string;
  values: PromValue[];
}

const attributes = (labels: Record<string, string | number>) => Object.entries(labels).map(([key, v]) => ({ key, value: { stringValue: String(v) } }));

/** One prom-client metric as an OTLP Metric, or null for a type with no OTLP counterpart here. */
function otlpMetric(m: PromMetric, startNs: string, nowNs: string): Record<string, unknown> | null {
  const point = (v: PromValue) => ({ attributes: attributes(v.labels), startTimeUnixNano: startNs, timeUnixNano: nowNs, asDouble: v.value });
  if (m.type === 'counter') return { name: m.name, description: m.help, sum: { aggregationTemporality: CUMULATIVE, isMonotonic: true, dataPoints: m.values.map(point) } };
  if (m.type === 'gauge') return { name: m.name, description: m.help, gauge: { dataPoints: m.values.map(point) } };
  if (m.type !== 'histogram') return null;
  // one data point per label set (without `le`): its buckets, sum and count
  const series = new Map<string, { labels: Record<string, string | number>; bounds: number[]; cumulative: number[]; sum: number; count: number }>();
  for (const v of m.values) {
    const { le, ...labels } = v.labels;
    const key = JSON.stringify(Object.entries(labels).sort());
    let s = series.get(key);
    if (!s) series.set(key, (s = { labels, bounds: [], cumulative: [], sum: 0, count: 0 }));
    if (v.metricName === `${m.name}_bucket`) {
      if (le !== '+Inf') s.bounds.push(Number(le));
      s.cumulative.push(v.value);
    } else if (v.metricName === `${m.name}_sum`) s.sum = v.value;
    else if (v.metricName === `${m.name}_count`) s.count = v.value;
  }
  const dataPoints = [...series.values()].map((s) => ({
    attributes: attributes(s.labels),
    startTimeUnixNano: startNs,
    timeUnixNano: nowNs,
    count: s.count,
    sum: s.sum,
    bucketCounts: s.cumulative.map((c, i) => c - (i === 0 ? 0 : s.cumulative[i - 1]!)),
    explicitBounds: s.bounds,
  }));
  return { name: m.name, description: m.help, unit: m.name.endsWith('_seconds') ? 's' : '', histogram: { aggregationTemporality: CUMULATIVE, dataPoints } };
}

const requestType = () => otlpProtoType('opentelemetry/proto/collector/metrics/v1/metrics_service.proto', 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest');

/** The registry's current values as one protobuf ExportMetricsServiceRequest. */
export async function encodeClientMetrics(metrics: ClientMetrics, startNs: string, nowNs: string): Promise<Uint8Array> {
  const json = (await metrics.registry.getMetricsAsJSON()) as unknown as PromMetric[];
  const T = requestType();
  const msg = T.fromObject({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'infermeter' } }, { key: 'service.version', value: { stringValue: infermeterVersion() } }] },
        scopeMetrics: [{ scope: { name: 'infermeter', version: infermeterVersion() }, metrics: json.map((m) => otlpMetric(m, startNs, nowNs)).filter((m) => m !== null) }],
      },
    ],
  });
  return T.encode(msg).finish();
}

const nowUnixNs = (): string => (BigInt(Date.now()) * 1_000_000n).toString();

export class OtlpMetricsPush {
  private readonly sender: OtlpSender;
  private readonly timer: NodeJS.Timeout;
  private readonly startNs = nowUnixNs();
  private inflight: Promise<void> | null = null;
  private warned = false;
  readonly counts = { pushes: 0, failed: 0 };

  /** @throws Error (one line) when the URL is not an OTLP endpoint; the spec has checked it already. */
  constructor(
    private readonly metrics: ClientMetrics,
    private readonly url: string,
    private readonly warn: (line: string) => void,
    intervalMs = PUSH_INTERVAL_MS,
  ) {
    this.sender = otlpSender(url, 'metrics');
    this.timer = setInterval(() => void this.push(), intervalMs);
    this.timer.unref();
  }

  /** One push now, unless one is still under way (then that one). */
  push(): Promise<void> {
    this.inflight ??= (async () => {
      try {
        await this.sender.send(await encodeClientMetrics(this.metrics, this.startNs, nowUnixNs()), PUSH_TIMEOUT_MS);
        this.counts.pushes++;
      } catch (err) {
        this.counts.failed++;
        if (!this.warned) {
          this.warned = true;
          this.warn(`--otlp-metrics: cannot push the client's metrics to ${redactUrl(this.url)} (${err instanceof Error ? err.message : String(err)}); the run goes on`);
        }
      } finally {
        this.inflight = null;
      }
    })();
    return this.inflight;
  }

  /** The final push, after the measured load: its counts are the run's. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.inflight) await this.inflight;
    await this.push();
    this.sender.close();
  }
}
