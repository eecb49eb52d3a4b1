/**
 * What `infermeter sim serve` calls: start the server, print one line with its URL, and close
 * it cleanly on SIGINT/SIGTERM. Resolves once listening; `stopped` resolves after the close.
 */
import { startSimServer } from './server.js';
import type { SimServer, SimServerOptions } from './server.js';

export interface ServeOptions extends SimServerOptions {
  /** Where the one status line goes (default: console.log). */
  log?: (line: string) => void;
  /** Install SIGINT/SIGTERM handlers that close the server (default true). */
  handleSignals?: boolean;
}

export interface ServingSim extends SimServer {
  /** Resolves when the server was closed (by close() or a signal). */
  stopped: Promise<void>;
}

export async function serveSim(opts: ServeOptions = {}): Promise<ServingSim> {
  const log = opts.log ?? ((l: string) => console.log(l));
  // The overload warning (late-steps.ts) goes with the status line unless told otherwise.
  const server = await startSimServer({ ...opts, warn: opts.warn ?? log });
  const t = opts.timing ?? { kind: 'fixed' as const, prefillMs: 50, perTokenMs: 10 };
  const timing = t.kind === 'fixed' ? `fixed prefill ${t.prefillMs} ms, ${t.perTokenMs} ms/token` : `engine ${typeof t.model === 'string' ? t.model : t.model.id} on ${typeof t.hardware === 'string' ? t.hardware : t.hardware.id}`;
  log(`infermeter sim: serving ${opts.modelName ?? 'sim-llama-3.1-8b'} at ${server.url}/v1 (${opts.dialect ?? 'vllm'} dialect, ${timing})`);
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  const onSignal = (): void => void close();
  const closeServer = server.close;
  const close = async (): Promise<void> => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeServer();
    resolveStopped();
  };
  if (opts.handleSignals ?? true) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  return Object.assign(server, { close, stopped });
}
