/** `infermeter sim serve`: the simulated engine as a standalone OpenAI-compatible server. */
import { parseOtlpEndpoint } from '../util/otlp-transport.js';
import { UserError } from '../errors/user-error.js';
import { serveSim } from '../sim/index.js';
import type { FaultOptions } from '../sim/faults.js';
import { loadTokenizer } from '../workload/index.js';
import type { CliIo } from './io.js';
import { z } from 'zod';
import { SimSpecSchema } from '../config/schema.js';
import { simAnswerRates, simReasoning, simTiming } from '../session/builtin-sim.js';
import { answerKeyFrom } from '../session/answer-key.js';
import { validateSpec } from '../config/load-spec.js';
import { SERVE_SIM_FLAGS, specFromFlags } from './run-flags.js';
import { onAbort } from '../util/on-abort.js';
import { FAULTS } from './fault-flags.js';

function int(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UserError(`${name}: expected an integer ≥ ${min}, got "${v}"`);
  return n;
}


function faultOptions(opts: Record<string, string | undefined>, seed: number): FaultOptions | undefined {
  const out: Record<string, unknown> = {};
  for (const [flag, , field, kind] of FAULTS) {
    const name = flag.split(' ')[0]!;
    const raw = opts[name.slice(2).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (kind === 'rate' && !(n >= 0 && n <= 1)) throw new UserError(`${name}: expected a fraction between 0 and 1, got "${raw}"`);
    if (kind === 'ms' && !(n >= 0 && Number.isFinite(n))) throw new UserError(`${name}: expected a number ≥ 0, got "${raw}"`);
    out[field] = n;
  }
  if (opts.faultRestart !== undefined) {
    const m = /^(\d+):(\d+)$/.exec(opts.faultRestart);
    if (!m) throw new UserError(`--fault-restart: expected AT_MS:DOWN_MS such as 10000:3000, got "${opts.faultRestart}"`);
    out.restart = { atMs: Number(m[1]), downMs: Number(m[2]) };
  }
  return Object.keys(out).length > 0 ? { seed, ...out } : undefined;
}

export async function simServeCommand(opts: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const port = int('--port', opts.port)!;
  if (opts.otlpTracesEndpoint !== undefined) {
    try {
      parseOtlpEndpoint(opts.otlpTracesEndpoint, 'traces');
    } catch (err) {
      throw new UserError(`--otlp-traces-endpoint: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (port > 65535) throw new UserError(`--port: expected 0–65535, got ${port}`);
  const dialect = opts.dialect;
  if (dialect !== 'vllm' && dialect !== 'llamacpp') throw new UserError(`--dialect: expected vllm or llamacpp, got "${dialect}"`);
  const seed = int('--seed', opts.seed) ?? 0;
  // The simulator settings go through the run spec's schema, as those of `run` and `sim run` do.
  const simFlags = specFromFlags(opts, SERVE_SIM_FLAGS);
  const { sim } = validateSpec(z.object({ sim: SimSpecSchema.prefault({}) }), simFlags.spec, { flagPaths: simFlags.flagPaths, configPath: null });
  const model = sim.model;
  const tokenizer = opts.tokenizer ? await loadTokenizer(opts.tokenizer, '--tokenizer') : null;
  const faults = faultOptions(opts, seed);
  const reasoning = simReasoning(sim);
  const answers = opts.answers ? { key: await answerKeyFrom(opts.answers), rates: simAnswerRates(sim) } : null;
  let server;
  try {
    server = await serveSim({
      host: opts.host ?? '127.0.0.1',
      port,
      modelName: model,
      dialect,
      seed,
      ...(faults ? { faults } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(answers ? { answers } : {}),
      ...(opts.groundTruth ? { groundTruthPath: opts.groundTruth } : {}),
      ...(opts.otlpTracesEndpoint ? { otlpTracesEndpoint: opts.otlpTracesEndpoint } : {}),
      ...(tokenizer ? { countTokens: (text: string) => tokenizer.count(text) } : {}),
      timing: simTiming(sim, model),
      enginePreset: sim.engine_preset,
      ...(sim.max_model_len !== null ? { maxModelLen: sim.max_model_len } : {}),
      log: (line) => io.stdout.write(`${line}\n`),
      warn: (line) => io.stderr.write(`${line}\n`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UserError(`--port ${port}: address already in use`);
    throw new UserError(`sim serve: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (answers) io.stdout.write(`answer mode: ${answers.key.size} prompts from ${opts.answers}, accuracy ${sim.accuracy}, json errors ${sim.json_error_rate}, hallucinations ${sim.hallucination_rate}, refusals ${sim.refusal_rate}\n`);
  onAbort(io.signal, () => void server.close());
  await server.stopped;
  return 0;
}
