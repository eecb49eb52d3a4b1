/**
 * Polls Prometheus endpoints during a run, on the coordinating thread (never a load worker), so
 * scraping never shares a thread with request timing when workers send the load. A failing
 * endpoint costs one warning line and the run goes on: observation never fails a load run.
 * Snapshot times are on the run clock: process.hrtime of the scrape minus the run's origin,
 * which is known only at t = 0, so raw times are kept until then.
 */
import { getText } from '../util/http-get.js';
import type { ProxySettings } from '../util/proxy.js';
import { redactUrl } from '../util/redact.js';
import { detectEngines, type EngineMap } from './engines.js';
import { parseExposition } from './exposition.js';
import { snapshotOf, type Snapshot } from './snapshot.js';

export interface ScrapeTarget {
  /** What is scraped: a URL, or a name for an exec source. */
  url: string;
  /** Instead of a GET: produce Prometheus text some other way (nvidia-smi). */
  exec?: () => Promise<string>;
  /** Pin the metric maps (DCGM endpoints); else detected from the first good scrape. */
  engines?: readonly EngineMap[];
}

export interface SourceReport {
  url: string;
  engines: string[];
  scrapes: number;
  failed: number;
  /** The first problem seen, in one line (unreachable, not Prometheus text, unknown engine). */
  problem: string | null;
}

export interface ScraperOptions {
  targets: ScrapeTarget[];
  intervalMs: number;
  timeoutMs?: number;
  headers?: Record<string, string>;
  insecureTls?: boolean;
  /** HTTP(S)_PROXY / NO_PROXY (util/proxy.ts); absent: direct. */
  proxy?: ProxySettings | null;
  warn: (line: string) => void;
  /** What the warning says happens next (default: the run goes on without them). */
  onProblem?: string;
  /** Monotonic clock in ns (tests inject one). */
  hrtime?: () => bigint;
}

const MAX_BYTES = 16 * 1024 * 1024;

interface RawSnapshot {
  atNs: bigint;
  snap: Snapshot;
}

export class Scraper {
  private raw: RawSnapshot[] = [];
  private taken = 0;
  private readonly reports: SourceReport[];
  private readonly engines: (readonly EngineMap[] | null)[];
  private timer: NodeJS.Timeout | null = null;
  private inflight: Promise<void> | null = null;
  private originNs: bigint;
  private stopped = false;
  private readonly hrtime: () => bigint;

  constructor(private readonly opts: ScraperOptions) {
    this.hrtime = opts.hrtime ?? (() => process.hrtime.bigint());
    this.originNs = this.hrtime();
    this.reports = opts.targets.map((t) => ({ url: redactUrl(t.url), engines: [], scrapes: 0, failed: 0, problem: null }));
    this.engines = opts.targets.map((t) => t.engines ?? null);
  }

  /** The run's t = 0 (process.hrtime.bigint() at the start); snapshots are timed from it. */
  setOrigin(originNs: bigint): void {
    this.originNs = originNs;
  }

  /** One scrape now (a baseline before the load), then one every interval. */
  async start(): Promise<void> {
    await this.scrapeAll();
    const tick = (): void => {
      if (this.stopped) return;
      this.inflight = this.scrapeAll().finally(() => {
        this.inflight = null;
        if (!this.stopped) this.timer = setTimeout(tick, this.opts.intervalMs);
      });
    };
    this.timer = setTimeout(tick, this.opts.intervalMs);
    this.timer.unref();
  }

  /** A last scrape (so the final window covers the run's end), then the snapshots on the run clock. */
  async stop(): Promise<{ snapshots: Snapshot[]; sources: SourceReport[] }> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inflight;
    await this.scrapeAll();
    const snapshots = this.raw.map(({ atNs, snap }) => ({ ...snap, t_ms: Number(atNs - this.originNs) / 1e6 }));
    return { snapshots, sources: this.reports };
  }

  /** Milliseconds on the scraper's clock (from the origin). */
  nowMs(): number {
    return Number(this.hrtime() - this.originNs) / 1e6;
  }

  /** Snapshots scraped since the previous call (watch reads them as they come). */
  takeNew(): Snapshot[] {
    const fresh = this.raw.slice(this.taken);
    this.taken = this.raw.length;
    return fresh.map(({ atNs, snap }) => ({ ...snap, t_ms: Number(atNs - this.originNs) / 1e6 }));
  }

  /** The endpoints' health so far. */
  get sources(): SourceReport[] {
    return this.reports;
  }

  /** One scrape of every endpoint now, besides the periodic ones (watch --once, tests). */
  scrapeNow(): Promise<void> {
    return this.scrapeAll();
  }

  private async scrapeAll(): Promise<void> {
    await Promise.all(this.opts.targets.map((t, i) => this.scrapeOne(t, i)));
  }

  private problem(i: number, line: string): void {
    const r = this.reports[i] as SourceReport;
    r.failed++;
    if (r.problem === null) {
      r.problem = line;
      this.opts.warn(`warning: server metrics from ${r.url}: ${line}; ${this.opts.onProblem ?? 'the run goes on without them'}`);
    }
  }

  private async scrapeOne(t: ScrapeTarget, i: number): Promise<void> {
    const atNs = this.hrtime();
    let body: string;
    try {
      if (t.exec) body = await t.exec();
      else {
        const res = await getText(new URL(t.url), { timeoutMs: this.opts.timeoutMs ?? 5000, maxBytes: MAX_BYTES, headers: { accept: 'text/plain', ...(this.opts.headers ?? {}) }, insecureTls: this.opts.insecureTls ?? false, proxy: this.opts.proxy ?? null });
        if (res.status !== 200) return this.problem(i, `HTTP ${res.status}`);
        if (/html/i.test(res.contentType)) return this.problem(i, `not Prometheus text (content type ${res.contentType})`);
        body = res.body;
      }
    } catch (err) {
      return this.problem(i, (err as Error).message);
    }
    const expo = parseExposition(body);
    if (expo.samples.length === 0) return this.problem(i, 'not Prometheus text (no samples)');
    let engines = this.engines[i] ?? null;
    if (engines === null) {
      const found = detectEngines(new Set(expo.samples.map((s) => s.name)));
      if (found.length === 0) return this.problem(i, 'no metric names of vLLM, SGLang, TGI, llama.cpp or DCGM (unknown engine)');
      engines = found;
      this.engines[i] = found;
    }
    const r = this.reports[i] as SourceReport;
    r.scrapes++;
    r.engines = engines.map((e) => e.id);
    this.raw.push({ atNs, snap: snapshotOf(expo, 0, i, engines) });
  }
}
