/** A real Prometheus server for tests (Debian's `prometheus`, installed by scripts/test-services.sh). */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';

export function prometheusBinary(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('prometheus is not installed: `npm run test:setup` installs it (scripts/test-services.sh; `npm test` runs it first)');
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every 200 ms until it gives a value (errors count as no value), at most maxMs. */
export async function until<T>(what: string, probe: () => Promise<T | null>, maxMs = 60_000): Promise<T> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
