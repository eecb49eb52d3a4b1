/**
 * Helpers for the benchmark servers (run in their own processes). Kept apart from lib.ts, whose
 * import pins the importing process to CPU 1 under BENCH_PIN=1.
 */
import type { IncomingMessage } from 'node:http';

/** The `max_tokens` a benchmark server was asked for (16 when the body has none or is not JSON). */
export function requestedTokens(req: IncomingMessage): Promise<number> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      try {
        resolve(Number((JSON.parse(Buffer.concat(parts).toString()) as { max_tokens?: number }).max_tokens ?? 16));
      } catch {
        resolve(16);
      }
    });
  });
}
