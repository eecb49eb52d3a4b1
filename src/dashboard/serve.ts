/** Serves the dashboard on 127.0.0.1 (never another interface: it shows everything under the results folder). */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createDashboardApp, type DashboardOptions } from './app.js';
import { shareHistory } from '../history/history-pool.js';

export interface RunningDashboard {
  url: string;
  /** DuckDB instances the dashboard opened on the history so far. */
  historyOpens(): number;
  close(): Promise<void>;
}

export async function startDashboard(opts: DashboardOptions & { port: number }): Promise<RunningDashboard> {
  // The page's requests come together: they share one DuckDB instance (history-pool.ts), not an open each, one after another.
  const shared = shareHistory(opts.resultsDir);
  // The history opened (and the journal of runs finished since the last read folded in) before
  // anything listens, not on the page's first request: with thousands of runs pending the fold
  // takes a second or more, which the first page load would otherwise wait for. A history that
  // cannot be read is left for the page's requests to report, as they do.
  await shared.pool.use(async () => undefined).catch(() => undefined);
  const app = createDashboardApp({ ...opts, cached: (key, compute) => shared.pool.cached(key, compute) });
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      void shared.stop();
      reject(err);
    };
    const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: opts.port }, (info: AddressInfo) => {
      server.off('error', onError);
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        historyOpens: () => shared.pool.opens,
        close: () =>
          new Promise<void>((r) => {
            // SSE streams stay open: end them rather than wait for them.
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => void shared.stop().then(r));
          }),
      });
    });
    server.once('error', onError);
  });
}
