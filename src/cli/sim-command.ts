/** `infermeter sim serve`: the simulated engine as a standalone OpenAI-compatible server. */
import { UserError } from '../errors/user-error.js';
import { serveSim } from '../sim/index.js';
import type { CliIo } from './io.js';

function int(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UserError(`${name}: expected an integer ≥ ${min}, got "${v}"`);
  return n;
}

function nonNegative(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UserError(`${name}: expected a number ≥ 0 (milliseconds), got "${v}"`);
  return n;
}

export async function simServeCommand(opts: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const port = int('--port', opts.port)!;
  if (port > 65535) throw new UserError(`--port: expected 0–65535, got ${port}`);
  const dialect = opts.dialect;
  if (dialect !== 'vllm' && dialect !== 'llamacpp') throw new UserError(`--dialect: expected vllm or llamacpp, got "${dialect}"`);
  const prefillMs = nonNegative('--prefill-ms', opts.prefillMs);
  const perTokenMs = nonNegative('--per-token-ms', opts.perTokenMs);
  const fixed = prefillMs !== undefined || perTokenMs !== undefined;
  const model = opts.model ?? 'llama-3.1-8b';
  let server;
  try {
    server = await serveSim({
      host: opts.host ?? '127.0.0.1',
      port,
      modelName: model,
      dialect,
      seed: int('--seed', opts.seed) ?? 0,
      timing: fixed ? { kind: 'fixed', prefillMs: prefillMs ?? 0, perTokenMs: perTokenMs ?? 0 } : { kind: 'engine', hardware: opts.hardware ?? 'h100', model },
      log: (line) => io.stdout.write(`${line}\n`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UserError(`--port ${port}: address already in use`);
    throw new UserError(`sim serve: ${err instanceof Error ? err.message : String(err)}`);
  }
  io.signal?.addEventListener('abort', () => void server.close(), { once: true });
  await server.stopped;
  return 0;
}
