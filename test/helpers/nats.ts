/**
 * A real NATS server with JetStream for the distributed tests: Debian's `nats-server` (.ci/run
 * installs it), on 127.0.0.1 on a free port with a temporary store, stopped after the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface NatsServer {
  url: string;
  close(): Promise<void>;
}

/** nats-server on PATH, else in the sbin folders Debian installs it to; a clear error when absent. */
export function findNatsServer(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const d of dirs) {
    const p = join(d, 'nats-server');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  throw new Error('nats-server not found (PATH, /usr/sbin): the distributed tests need a real NATS server; install it with `npm run test:setup` (scripts/test-services.sh; `npm test` runs it first)');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startNats(): Promise<NatsServer> {
  const bin = findNatsServer();
  const port = await freePort();
  const store = tempDir('nats');
  const child: ChildProcess = spawn(bin, ['-js', '-sd', store, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (c: Buffer) => {
      log += c.toString();
      if (log.includes('Server is ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`nats-server exited (code ${code}) before it was ready:\n${log}`)));
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    url: `nats://127.0.0.1:${port}`,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
