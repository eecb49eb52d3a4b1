/** The `observe` section of the run spec: scraping the server's metrics during a run (docs/observe.md). */
import { z } from 'zod';
import { parseOtlpEndpoint, type OtlpSignal } from '../util/otlp-transport.js';
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

/** Where `--otlp-receiver` listens, and which OTLP transport it speaks. */
export interface OtlpListen extends MetricsListen {
  protocol: 'http' | 'grpc';
}

/**
 * `--otlp-receiver`: `[HOST:]PORT` or `http://HOST:PORT` is OTLP/HTTP (default port 4318),
 * `grpc://HOST[:PORT]` OTLP/gRPC (default port 4317). Throws UnitError naming what is wrong.
 */
export function parseOtlpListen(v: string | number): OtlpListen {
  const text = String(v).trim();
  const m = /^(https?|grpc):\/\/(.*?)\/?$/i.exec(text);
  if (!m) return { ...parseMetricsListen(text), protocol: 'http' };
  const protocol = m[1]!.toLowerCase() === 'grpc' ? 'grpc' : 'http';
  const rest = m[2]!;
  if (/^https$/i.test(m[1]!)) throw new UnitError(`"${text}": the receiver speaks plain HTTP or gRPC (http://HOST:PORT, grpc://HOST:PORT), not https`);
  // a host without a port takes the transport's OTLP default
  const withPort = /:\d{1,5}$/.test(rest) || /^\d{1,5}$/.test(rest) ? rest : `${rest}:${protocol === 'grpc' ? 4317 : 4318}`;
  try {
    return { ...parseMetricsListen(withPort), protocol };
  } catch (err) {
    throw new UnitError(`"${text}": ${err instanceof Error ? err.message.replace(/^"[^"]*": /, '') : String(err)}`);
  }
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

const otlpListen = z
  .union([z.string(), z.number(), z.object({ host: z.string(), port: z.number().int(), protocol: z.enum(['http', 'grpc']).default('http') }).strict()])
  .transform((v, ctx): OtlpListen => {
    try {
      return typeof v === 'object' ? { ...parseMetricsListen(`${v.host.includes(':') ? `[${v.host}]` : v.host}:${v.port}`), protocol: v.protocol } : parseOtlpListen(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof UnitError ? err.message : String(err) });
      return z.NEVER;
    }
  });

/** An OTLP endpoint URL: http(s)://… (OTLP/HTTP protobuf) or grpc(s)://HOST[:PORT] (OTLP/gRPC). */
const otlpEndpoint = (signal: OtlpSignal) =>
  z.string().superRefine((v, ctx) => {
    try {
      parseOtlpEndpoint(v, signal);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
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
    otlp_receiver: otlpListen
      .nullable()
      .default(null)
      .describe('Receive OTLP trace spans during the run and join them to the records by trace id: [HOST:]PORT or http://HOST:PORT for OTLP/HTTP, grpc://HOST[:4317] for OTLP/gRPC (docs/observe.md §Traces).'),
    spans_file: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe("Also read the run's spans from this OpenTelemetry Collector file-exporter output (OTLP/JSON lines) after the load, for servers that cannot reach the client (docs/observe.md §With an OpenTelemetry Collector)."),
    otlp_forward: otlpEndpoint('traces')
      .nullable()
      .default(null)
      .describe("--otlp-receiver: also forward every accepted trace payload to this collector (http(s)://HOST:4318[/v1/traces] or grpc(s)://HOST:4317), through a bounded queue that never holds the receiver up."),
    otlp_metrics: otlpEndpoint('metrics')
      .nullable()
      .default(null)
      .describe("Push the client's live metrics (those of --metrics-port) as OTLP metrics to this endpoint every 10 s and once at the end (http(s)://HOST:4318[/v1/metrics] or grpc(s)://HOST:4317)."),
    otlp_wait_ms: intervalMs.default(6000).describe('--otlp-receiver: after the load, wait up to this long for the spans of its requests (engines export in batches; vLLM every 5 s).'),
    cold_start: z.boolean().default(false).describe('Measure a cold start: wait for the server to answer its health endpoint, then the first response, then compare the first requests with the rest.'),
    cold_start_timeout_ms: intervalMs.default(600_000).describe('--cold-start: give up when the server is not healthy within this long (default 10m).'),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.otlp_forward !== null && o.otlp_receiver === null) ctx.addIssue({ code: 'custom', path: ['otlp_forward'], message: 'forwards what --otlp-receiver receives: give --otlp-receiver too' });
  });

export type ObserveSpec = z.output<typeof ObserveSpecSchema>;
