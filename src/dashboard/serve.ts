/** Serves the dashboard on 127.0.0.1 (never another interface: it shows everything under the results folder). */
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createDashboardApp, type DashboardOptions } from './app.js';

export interface RunningDashboard {
  url: string;
  close(): Promise<void>;
}

export function startDashboard(opts: DashboardOptions & { port: number }): Promise<RunningDashboard> {
  const app = createDashboardApp(opts);
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: opts.port }, (info: AddressInfo) => {
      server.off('error', onError);
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((r) => {
            // SSE streams stay open: end them rather than wait for them.
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
    server.once('error', onError);
  });
}
