/**
 * Runs `handler` once when `signal` aborts, and at once when it already has. An abort listener
 * attached after the abort never fires: a Ctrl-C during planning or pre-flight, or a worker's
 * cancel that arrives before its start, would otherwise be swallowed and the run go ahead.
 * Returns a function that detaches the handler (a no-op once it ran).
 */
export function onAbort(signal: AbortSignal | undefined, handler: () => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    handler();
    return () => {};
  }
  signal.addEventListener('abort', handler, { once: true });
  return () => signal.removeEventListener('abort', handler);
}
