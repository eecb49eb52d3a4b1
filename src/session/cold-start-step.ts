/**
 * --cold-start around a run: wait for the server's health endpoint before pre-flight, time the
 * first response (pre-flight's probe), and afterwards compare the first requests with the rest.
 * result.json `cold_start` (docs/observe.md).
 */
import { waitForHealthy, type HealthWait } from '../client/cold-start.js';
import { coldStartLatency, type ColdStartLatency } from '../metrics/cold-start.js';
import type { RequestRecord } from '../record/record.js';
import type { RunSpec } from './run-spec.js';
import type { ProxySettings } from '../util/proxy.js';

export interface ColdStartResult extends HealthWait, ColdStartLatency {
  /** From the first health poll to the end of the first successful request (pre-flight); null with --no-preflight. */
  time_to_first_response_ms: number | null;
}

export class ColdStartStep {
  private firstResponseMs: number | null = null;

  private constructor(
    private readonly t0: number,
    private readonly health: HealthWait,
  ) {}

  static async wait(spec: RunSpec, baseUrl: string, apiKey: string | null, signal: AbortSignal | undefined, log: (line: string) => void, proxy: ProxySettings | null = null): Promise<ColdStartStep> {
    const t0 = performance.now();
    log(`--cold-start: waiting for ${baseUrl} to answer its health endpoint (at most ${Math.round(spec.observe.cold_start_timeout_ms / 1000)} s)`);
    const health = await waitForHealthy(baseUrl, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      insecureTls: spec.target.tls_insecure,
      proxy,
      timeoutMs: spec.observe.cold_start_timeout_ms,
      intervalMs: 250,
      ...(signal ? { signal } : {}),
    });
    log(`--cold-start: healthy after ${(health.time_to_healthy_ms / 1000).toFixed(2)} s (${health.polls} poll${health.polls === 1 ? '' : 's'} of ${health.path})`);
    return new ColdStartStep(t0, health);
  }

  /** The first request succeeded now (pre-flight). */
  firstResponse(): void {
    this.firstResponseMs = performance.now() - this.t0;
  }

  result(records: readonly RequestRecord[]): ColdStartResult {
    return { ...this.health, time_to_first_response_ms: this.firstResponseMs, ...coldStartLatency(records) };
  }
}
