/**
 * Serves ClientMetrics at /metrics for the length of a run (`--metrics-port [HOST:]PORT`). A bare
 * port listens on every interface, as Prometheus exporters do, so a scraper on another host or a
 * Kubernetes pod monitor reaches it; the page holds counts and timings only, never a URL, header
 * or server text. A port that cannot be bound is a warning: the run is measured regardless.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { MetricsListen } from '../config/observe-spec.js';
import { ClientMetrics } from './client-metrics.js';

export interface ClientMetricsServer {
  metrics: ClientMetrics;
  /** http://host:port/metrics as bound (port 0 resolved). */
  url: string;
  close(): Promise<void>;
}

/** Null (after one warning line) when the address cannot be bound, e.g. the port is in use. */
export function startClientMetricsServer(listen: MetricsListen, warn: (line: string) => void, metrics = new ClientMetrics()): Promise<ClientMetricsServer | null> {
  const app = new Hono();
  app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType }));
  app.get('/', (c) => c.text('infermeter client metrics: /metrics\n'));
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => {
      warn(`--metrics-port ${listen.host}:${listen.port}: cannot listen (${err.code ?? err.message}); the run goes on without serving its metrics`);
      resolve(null);
    };
    const server: ServerType = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port }, (info: AddressInfo) => {
      server.off('error', onError);
      const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
      resolve({
        metrics,
        url: `http://${host}:${info.port}/metrics`,
        close: () =>
          new Promise<void>((r) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
    server.once('error', onError);
  });
}
