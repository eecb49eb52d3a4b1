/**
 * The measured part of the run pipeline, once for every driver: observer (server-side series) →
 * live view → answer checks → drive the load → the view's end → the last checks → the measured
 * window → observer finish. `run`, `run --distributed`, every sweep stage (HTTP, NATS) and their
 * drivers (in-process workers, NATS workers) go through it; only the driver differs.
 */
import { measuredWindow, measureRecords } from '../metrics/index.js';
import { RunObserver, type Observed } from '../observe/run-observer.js';
import { ClientMetrics } from './client-metrics.js';
import { OtlpMetricsPush } from './client-metrics-otlp.js';
import { startClientMetricsServer } from './client-metrics-server.js';
import type { RequestRecord } from '../record/record.js';
import type { DisplayOptions } from '../report/progress-display.js';
import type { ProgressListener } from '../runner/progress.js';
import type { RecordSink } from '../runner/loop-context.js';
import { answerEvaluation, finishAnswerChecks } from './answer-checks.js';
import { envOf, openView, type SessionContext } from './context.js';
import type { RunSpec } from './run-spec.js';
import type { ProxySettings } from '../util/proxy.js';

/** What the pipeline hands a driver. */
export interface DriveHooks {
  /** Each finished record (with its answer check, when it has one). */
  onRecord: RecordSink;
  onProgress: ProgressListener;
  /** At t = 0: its value on the host's monotonic clock (ns) and the wall clock (ms since the epoch). */
  onStart: (originNs: string, epochMs: number) => void;
}

/** What every driver returns: the records, and whether a stop cut the load short. */
export interface DriveOutcome {
  records: RequestRecord[];
  interrupted: boolean;
}

export interface MeasureOptions<D extends DriveOutcome> {
  spec: RunSpec;
  /** The target's URL, for the server-side series. */
  baseUrl: string;
  ctx: SessionContext;
  log: (line: string) => void;
  /** The live view's title and options. */
  view: DisplayOptions;
  /** Load threads of this process: 0 runs the load on this thread, so answer checks wait for its end. */
  threads: number;
  drive: (hooks: DriveHooks) => Promise<D>;
  /** Each record as it arrives, before its answer is judged (a stage's label, an early-stop watch). */
  onRecord?: (rec: RequestRecord) => void;
  /** Each record once judged (the records file). */
  sink?: (rec: RequestRecord) => void;
  /** HTTP(S)_PROXY / NO_PROXY for the server-side scrapes (the target's); absent: direct. */
  proxy?: ProxySettings | null;
  /** An observer started earlier (a distributed run scrapes its baseline before the barrier); default: started here. */
  observer?: RunObserver | null;
}

export interface Measured<D extends DriveOutcome> {
  driven: D;
  /** The server's side over the measured window; null when not observed. */
  observed: Observed | null;
}

export async function measureLoad<D extends DriveOutcome>(o: MeasureOptions<D>): Promise<Measured<D>> {
  const { spec, log } = o;
  // Server-side series (docs/observe.md): a baseline scrape now, then one per interval, off the load threads.
  const observer =
    o.observer !== undefined ? o.observer : await RunObserver.start({ spec: spec.observe, baseUrl: o.baseUrl, insecureTls: spec.target.tls_insecure, proxy: o.proxy ?? null, warn: log, envPath: envOf(o.ctx).PATH });
  // --metrics-port: the client's own live metrics, for the length of the measured load.
  const clientMetrics = spec.observe.metrics_port || spec.observe.otlp_metrics ? new ClientMetrics() : null;
  const served = spec.observe.metrics_port ? await startClientMetricsServer(spec.observe.metrics_port, log, clientMetrics!) : null;
  if (served) log(`client metrics at ${served.url}`);
  // --otlp-metrics: the same registry pushed as OTLP metrics every 10 s, and once more at the end.
  const pushed = spec.observe.otlp_metrics ? new OtlpMetricsPush(clientMetrics!, spec.observe.otlp_metrics, log) : null;
  const view = await openView(o.ctx, o.view);
  // Checked requests' answers are judged on this thread, off the load's dispatch loop, before their records are written.
  const checks = answerEvaluation(o.threads, (rec) => {
    o.sink?.(rec);
    if (rec.quality) view.judged(rec);
  });
  let driven: D;
  try {
    driven = await o.drive({
      onRecord: (rec, check) => {
        o.onRecord?.(rec);
        clientMetrics?.record(rec);
        checks.accept(rec, check);
        view.record(rec);
      },
      onProgress: (p) => {
        clientMetrics?.progress(p);
        view.update(p);
      },
      onStart: (originNs, epochMs) => observer?.setOrigin(originNs, epochMs),
    });
  } finally {
    view.finish();
    await served?.close();
    await pushed?.close();
  }
  await finishAnswerChecks(checks, log);
  const span = measuredWindow(measureRecords(driven.records));
  const observed = observer ? await observer.finish(span?.start_ms ?? 0, span?.end_ms ?? 0) : null;
  return { driven, observed };
}
