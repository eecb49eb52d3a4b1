/** The `observe` section of the run spec: scraping the server's metrics during a run (docs/observe.md). */
import { z } from 'zod';
import { parseDurationMs, UnitError } from './units.js';

const url = z.string().url('a URL such as http://host:8000/metrics');

const intervalMs = z
  .union([z.string(), z.number()])
  .describe('How often to scrape, e.g. 1s or 500ms (bare number: seconds; at least 100 ms).')
  .transform((v, ctx): number => {
    try {
      const ms = parseDurationMs(v, 's');
      if (ms < 100) {
        ctx.addIssue({ code: 'custom', message: `at least 100ms, got ${ms} ms` });
        return z.NEVER;
      }
      return ms;
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof UnitError ? err.message : String(err) });
      return z.NEVER;
    }
  });

export const ObserveSpecSchema = z
  .object({
    metrics: z.boolean().default(true).describe('Scrape the server\'s Prometheus metrics during the run (false: --no-metrics).'),
    metrics_urls: z.array(url).default([]).describe('Prometheus endpoints to scrape; empty: /metrics on the target\'s origin.'),
    dcgm_urls: z.array(url).default([]).describe('NVIDIA DCGM exporter endpoints to scrape for GPU telemetry.'),
    nvidia_smi: z.boolean().nullable().default(null).describe('Sample GPU telemetry with nvidia-smi each scrape; null: when nvidia-smi is on PATH and the target is on this host.'),
    prometheus_url: url.nullable().default(null).describe('Read the series from this Prometheus server (range queries over the run) instead of scraping.'),
    scrape_interval_ms: intervalMs.default(1000),
    cold_start: z.boolean().default(false).describe('Measure a cold start: wait for the server to answer its health endpoint, then the first response, then compare the first requests with the rest.'),
    cold_start_timeout_ms: intervalMs.default(600_000).describe('--cold-start: give up when the server is not healthy within this long (default 10m).'),
  })
  .strict();

export type ObserveSpec = z.output<typeof ObserveSpecSchema>;
