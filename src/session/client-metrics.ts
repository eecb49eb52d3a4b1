/**
 * The benchmark's own live metrics in Prometheus form (`--metrics-port`, docs/observe.md
 * §The client's own metrics): what the client sent and got back, and its own health, while the
 * run goes on — so a dashboard that already watches the server can watch the load beside it.
 *
 * Values come from the same places as the run's figures: every latency histogram is one
 * definition of the metric registry (LATENCY_METRICS: its id, its `over` population, its
 * `value`/`fill`), observed for measure-phase records as they complete, so a histogram's count
 * equals the count of the run's distribution of that metric. Outcomes count every final attempt
 * of every phase, labelled by phase and status; superseded attempts (--retries) are counted apart.
 * The in-flight, queued and client-health gauges are the progress snapshot's.
 *
 * prom-client writes the exposition text (its own Registry, never the global one, so two runs in
 * one process do not share counters). No label carries a URL, a header or any text from the server.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LATENCY_METRICS } from '../metrics/index.js';
import type { RequestRecord } from '../record/record.js';
import type { ProgressSnapshot } from '../runner/progress.js';

/** vLLM's own bucket bounds (seconds) for the same quantities, so the two histograms line up. */
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
const TOKEN_GAP_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
const REQUEST_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

const BUCKETS_BY_METRIC: Record<string, number[]> = {
  tpot_ms: TOKEN_GAP_BUCKETS,
  itl_ms: TOKEN_GAP_BUCKETS,
  e2el_ms: REQUEST_BUCKETS,
  e2el_from_schedule_ms: REQUEST_BUCKETS,
};

/** `ttft_ms` → `infermeter_ttft_seconds`: Prometheus names carry the base unit. */
export function histogramName(metricId: string): string {
  return `infermeter_${metricId.replace(/_ms$/, '')}_seconds`;
}

type LatencyDef = (typeof LATENCY_METRICS)[number];

export class ClientMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'phase' | 'status'>;
  private readonly errors: Counter<'error_class'>;
  private readonly retried: Counter;
  private readonly outputTokens: Counter;
  private readonly inflight: Gauge;
  private readonly queued: Gauge;
  private readonly lag: Gauge;
  private readonly busy: Gauge;
  private readonly sent: Gauge;
  private readonly histograms: Array<{ def: LatencyDef; hist: Histogram }>;
  private gaps = new Float64Array(256);

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'infermeter_requests_total', help: 'Requests completed (final attempts), by run phase and status.', labelNames: ['phase', 'status'], registers });
    this.errors = new Counter({ name: 'infermeter_request_errors_total', help: 'Failed final attempts by error class (docs/records.md).', labelNames: ['error_class'], registers });
    this.retried = new Counter({ name: 'infermeter_request_retries_total', help: 'Attempts superseded by a retry (--retries).', registers });
    this.outputTokens = new Counter({ name: 'infermeter_output_tokens_total', help: 'Output tokens of ok measure-phase requests.', registers });
    this.inflight = new Gauge({ name: 'infermeter_requests_in_flight', help: 'Requests sent and not yet completed.', registers });
    this.queued = new Gauge({ name: 'infermeter_requests_queued', help: 'Requests waiting for a --max-concurrency slot.', registers });
    this.sent = new Gauge({ name: 'infermeter_requests_sent', help: 'Requests sent so far in this run.', registers });
    this.lag = new Gauge({ name: 'infermeter_dispatch_lag_max_seconds', help: 'Worst lateness of a scheduled send since the previous progress update (the validity check on the schedule).', registers });
    this.busy = new Gauge({ name: 'infermeter_client_busy_ratio', help: "The sending thread's event-loop utilization since the previous update (the validity check on client saturation).", registers });
    this.histograms = LATENCY_METRICS.map((def) => ({
      def,
      hist: new Histogram({ name: histogramName(def.id), help: `${def.label}: ${def.formula} (measure phase, ${def.over === 'ok' ? 'ok requests' : 'every attempt'}).`, buckets: BUCKETS_BY_METRIC[def.id] ?? TTFT_BUCKETS, registers }),
    }));
  }

  /** One completed attempt. */
  record(r: RequestRecord): void {
    if (r.retried) {
      this.retried.inc();
      return;
    }
    this.requests.inc({ phase: r.phase, status: r.status });
    if (r.error_class !== null) this.errors.inc({ error_class: r.error_class });
    if (r.phase !== 'measure') return;
    if (r.status === 'ok') this.outputTokens.inc(r.output_tokens);
    for (const { def, hist } of this.histograms) {
      if (def.over === 'ok' && r.status !== 'ok') continue;
      if (def.kind === 'request') {
        const v = def.value(r);
        if (v !== null) hist.observe(v / 1000);
        continue;
      }
      const n = def.count(r);
      if (n > this.gaps.length) this.gaps = new Float64Array(Math.max(n, this.gaps.length * 2));
      const wrote = def.fill(r, this.gaps, 0);
      for (let i = 0; i < wrote; i++) hist.observe(this.gaps[i]! / 1000);
    }
  }

  progress(p: ProgressSnapshot): void {
    this.inflight.set(p.inflight);
    this.queued.set(p.queued);
    this.sent.set(p.sent);
    if (typeof p.lag_max_ms === 'number') this.lag.set(p.lag_max_ms / 1000);
    if (typeof p.busy === 'number') this.busy.set(p.busy);
  }

  /** The exposition text (text/plain; version=0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
