/**
 * SIGINT (Ctrl-C), SIGTERM (`timeout`, `docker stop`, Kubernetes, a cancelled CI job) and SIGHUP
 * (the terminal went away) all stop a run the same way: sending stops, requests in flight are
 * cancelled, the records are flushed, result.json and the summary are written, and the process
 * exits 128 + the signal's number. A second signal ends the process at once (the default
 * disposition, restored after the first).
 */
import { stopSignalCode } from '../errors/exit-codes.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The exit code of a run stopped through `signal`: its reason names the signal (a bare abort counts as Ctrl-C). */
export function signalExitCode(signal: AbortSignal | undefined): number {
  return stopSignalCode(signal?.reason);
}

/** What a command that sends requests does when stopped; the others only stop. */
export const STOPPING_REQUESTS = 'cancelling requests in flight, saving what was measured';

/**
 * Aborts `controller` with the signal's name on the first stop signal; returns a function that
 * stops listening. `doing` says what stopping does (a command that sends no requests has none to cancel).
 */
export function listenForStopSignals(controller: AbortController, say: (line: string) => void, doing: string | null = STOPPING_REQUESTS): () => void {
  const detach = (): void => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = (): void => {
      detach();
      say(`${sig}: stopping${doing ? ` — ${doing}` : ''} (send it again to quit at once)`);
      controller.abort(sig);
    };
    process.on(sig, h);
    return [sig, h] as const;
  });
  return detach;
}
