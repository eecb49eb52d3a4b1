/**
 * Server-side observation around one load run: scrape the target's /metrics (or read a
 * Prometheus server afterwards), then summarize over the measured span. Never fails the run.
 */
import type { ObserveSpec } from '../config/observe-spec.js';
import { DCGM } from './engines.js';
import { findNvidiaSmi, sampleNvidiaSmi } from './nvidia-smi.js';
import { observationOf, type ServerObservation } from './observation.js';
import { readFromPrometheus } from './prometheus-source.js';
import { Scraper, type ScrapeTarget } from './scraper.js';
import type { Snapshot } from './snapshot.js';
import { redactUrl } from '../util/redact.js';
import type { ProxySettings } from '../util/proxy.js';

/** How long to wait for a Prometheus server to scrape past the run's end (its interval is unknown to us). */
const PROMETHEUS_WAIT_MS = 30_000;

export interface ObserverOptions {
  spec: ObserveSpec;
  /** The target's root URL; its origin's /metrics is scraped when no --metrics-url is given. */
  baseUrl: string;
  headers?: Record<string, string>;
  insecureTls?: boolean;
  /** HTTP(S)_PROXY / NO_PROXY for the scrapes (util/proxy.ts); absent: direct (the simulator). */
  proxy?: ProxySettings | null;
  warn: (line: string) => void;
  /** PATH to look for nvidia-smi on. */
  envPath?: string;
}

export interface Observed {
  observation: ServerObservation;
  snapshots: Snapshot[];
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** The Prometheus endpoints of a run: --metrics-url (default: /metrics on the target's origin), then --dcgm-url. */
export function metricsUrls(spec: ObserveSpec, baseUrl: string): { engine: string[]; dcgm: string[] } {
  return { engine: spec.metrics_urls.length > 0 ? spec.metrics_urls : [new URL('/metrics', new URL(baseUrl).origin).toString()], dcgm: spec.dcgm_urls };
}

/** nvidia-smi reports this host's GPUs: read when asked (--nvidia-smi), or by default when the target is on this host. */
export function nvidiaSmiWanted(spec: ObserveSpec, baseUrl: string): boolean {
  return spec.nvidia_smi === true || (spec.nvidia_smi === null && LOOPBACK.test(new URL(baseUrl).hostname));
}

export function scrapeTargets(spec: ObserveSpec, baseUrl: string, envPath?: string): ScrapeTarget[] {
  const urls = metricsUrls(spec, baseUrl);
  const out: ScrapeTarget[] = [...urls.engine.map((url) => ({ url })), ...urls.dcgm.map((url) => ({ url, engines: [DCGM] }))];
  const smi = spec.nvidia_smi === false ? null : findNvidiaSmi(envPath);
  const wanted = nvidiaSmiWanted(spec, baseUrl);
  if (wanted && smi) out.push({ url: 'nvidia-smi', engines: [DCGM], exec: () => sampleNvidiaSmi(smi) });
  else if (spec.nvidia_smi === true) out.push({ url: 'nvidia-smi', engines: [DCGM], exec: () => Promise.reject(new Error('nvidia-smi is not on PATH')) });
  return out;
}

export class RunObserver {
  private originNs = process.hrtime.bigint();
  private originEpochMs = Date.now();

  private constructor(
    private readonly opts: ObserverOptions,
    private readonly scraper: Scraper | null,
  ) {}

  /** Null when observation is off (--no-metrics without --prometheus-url). */
  static async start(opts: ObserverOptions): Promise<RunObserver | null> {
    const { spec } = opts;
    if (spec.prometheus_url !== null) return new RunObserver(opts, null);
    if (!spec.metrics) return null;
    const scraper = new Scraper({
      targets: scrapeTargets(spec, opts.baseUrl, opts.envPath),
      intervalMs: spec.scrape_interval_ms,
      warn: opts.warn,
      ...(opts.headers ? { headers: opts.headers } : {}),
      ...(opts.insecureTls !== undefined ? { insecureTls: opts.insecureTls } : {}),
      ...(opts.proxy ? { proxy: opts.proxy } : {}),
    });
    await scraper.start();
    return new RunObserver(opts, scraper);
  }

  /** The run's t = 0 (process.hrtime.bigint() as a decimal string) and its wall-clock time. */
  setOrigin(originNs: string, epochMs: number): void {
    this.originNs = BigInt(originNs);
    this.originEpochMs = epochMs;
    this.scraper?.setOrigin(this.originNs);
  }

  /** Stops scraping and summarizes over [fromMs, toMs] of the run clock. */
  async finish(fromMs: number, toMs: number): Promise<Observed> {
    const { spec } = this.opts;
    if (this.scraper) {
      const { snapshots, sources } = await this.scraper.stop();
      return { observation: observationOf(snapshots, sources, 'scrape', spec.scrape_interval_ms, fromMs, toMs), snapshots };
    }
    this.opts.warn(`reading server series from Prometheus at ${redactUrl(spec.prometheus_url as string)} (waiting for a scrape past the run's end, at most ${PROMETHEUS_WAIT_MS / 1000} s)`);
    const read = await readFromPrometheus(
      spec.prometheus_url as string,
      { fromEpochMs: this.originEpochMs + fromMs - spec.scrape_interval_ms, toEpochMs: this.originEpochMs + toMs + spec.scrape_interval_ms, originEpochMs: this.originEpochMs, stepMs: spec.scrape_interval_ms, waitMs: PROMETHEUS_WAIT_MS },
      this.opts.warn,
    );
    return { observation: observationOf(read.snapshots, read.sources, 'prometheus', spec.scrape_interval_ms, fromMs, toMs), snapshots: read.snapshots };
  }
}
