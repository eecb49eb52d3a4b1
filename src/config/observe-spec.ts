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

/** Where `--metrics-port` listens. */
export interface MetricsListen {
  host: string;
  port: number;
}

/**
 * `--metrics-port`: `9464` (every interface, as Prometheus exporters listen), `127.0.0.1:9464`,
 * `[::1]:9464`; port 0 picks a free one. Throws UnitError naming what is wrong.
 */
export function parseMetricsListen(v: string | number): MetricsListen {
  const text = String(v).trim();
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text);
  if (!m) throw new UnitError(`"${text}": expected a port (9464) or HOST:PORT (127.0.0.1:9464)`);
  const port = Number(m[2]);
  if (port > 65535) throw new UnitError(`"${text}": port ${port} is above 65535`);
  const host = m[1] === undefined ? '0.0.0.0' : m[1].replace(/^\[|\]$/g, '');
  return { host, port };
}

const metricsListen = z
  // the object is what a saved spec.json holds after the first parse
  .union([z.string(), z.number(), z.object({ host: z.string(), port: z.number().int() }).strict()])
  .describe("Serve the client's live metrics in Prometheus format on this [HOST:]PORT during the run (docs/observe.md).")
  .transform((v, ctx): MetricsListen => {
    try {
      return parseMetricsListen(typeof v === 'object' ? `${v.host.includes(':') ? `[${v.host}]` : v.host}:${v.port}` : v);
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
    metrics_port: metricsListen.nullable().default(null),
    otlp_receiver: metricsListen
      .nullable()
      .default(null)
      .describe('Receive OTLP/HTTP trace spans on this [HOST:]PORT during the run and join them to the records by trace id (docs/observe.md §Traces).'),
    spans_file: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe("Also read the run's spans from this OpenTelemetry Collector file-exporter output (OTLP/JSON lines) after the load, for servers that cannot reach the client (docs/observe.md §With an OpenTelemetry Collector)."),
    otlp_wait_ms: intervalMs.default(6000).describe('--otlp-receiver: after the load, wait up to this long for the spans of its requests (engines export in batches; vLLM every 5 s).'),
    cold_start: z.boolean().default(false).describe('Measure a cold start: wait for the server to answer its health endpoint, then the first response, then compare the first requests with the rest.'),
    cold_start_timeout_ms: intervalMs.default(600_000).describe('--cold-start: give up when the server is not healthy within this long (default 10m).'),
  })
  .strict();

export type ObserveSpec = z.output<typeof ObserveSpecSchema>;
