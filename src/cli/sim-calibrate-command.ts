/**
 * `infermeter sim calibrate RUN_DIR… --hardware h100 --model llama-3.1-8b --out my-h100.yaml`:
 * fits the simulator's efficiencies and overheads to saved runs of a real server (per-request
 * TTFT and TPOT, each run replayed with its own requests and load; src/sim/calibrate/fit.ts),
 * prints the fitted values and the fit error before and after, and writes a profile that
 * `--sim-profile` reads (src/config/sim-profile.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { calibrate, hardwareProfile, modelProfile, validateTwin, type CalibrationRun, type MeasuredRequest } from '../sim/index.js';
import { readRecordsFile } from '../store/records-file.js';
import { SimSpecSchema, type SimSpec } from '../config/schema.js';
import { simEngine } from '../session/builtin-sim.js';
import { validateSpec } from '../config/load-spec.js';
import type { SimProfile } from '../config/sim-profile.js';
import { ENGINE_FLAGS, specFromFlags } from './run-flags.js';
import { readSavedRun, savedLoad } from '../session/saved-run.js';
import type { CliIo } from './io.js';
import { errorBarLines } from './twin-error-text.js';

/** A record's request as the fit needs it, or null when it did not complete with timings and lengths. */
function measured(r: RequestRecord): MeasuredRequest | null {
  const prompt = r.prompt_tokens ?? r.client_prompt_tokens;
  if (r.status !== 'ok' || r.first_token_ms === null || prompt === null || r.output_tokens < 1) return null;
  const last = r.chunk_ms.length > 0 ? (r.chunk_ms[r.chunk_ms.length - 1] as number) : r.end_ms;
  return {
    id: r.id,
    scheduled_ms: r.scheduled_ms,
    sent_ms: r.sent_ms,
    prompt_tokens: prompt,
    output_tokens: r.output_tokens,
    ttft_ms: r.first_token_ms - r.sent_ms,
    tpot_ms: r.output_tokens > 1 ? (last - r.first_token_ms) / (r.output_tokens - 1) : null,
  };
}

/** One saved run as a calibration input: its usable requests and its load. */
export function calibrationRun(dir: string, warn: (line: string) => void, command = 'sim calibrate'): CalibrationRun {
  const path = join(dir, 'records.jsonl');
  if (!existsSync(path)) throw new UserError(`${command}: ${dir} is not a run directory (no records.jsonl)`);
  const { records } = readRecordsFile(path, { warn });
  const load = savedLoad(readSavedRun(dir, warn));
  if (load === null) throw new UserError(`${command}: ${dir} has neither result.json nor spec.json, so its load is unknown`);
  const requests = records.map(measured).filter((x): x is MeasuredRequest => x !== null);
  if (requests.length < 2) throw new UserError(`${command}: ${dir} has ${requests.length} completed request(s) with timings and token counts; at least 2 are needed`);
  const conc = typeof load['concurrency'] === 'number' ? load['concurrency'] : null;
  const maxc = typeof load['max_concurrency'] === 'number' ? load['max_concurrency'] : null;
  return { label: dir, concurrency: load['mode'] === 'closed' ? conc : null, max_concurrency: maxc, requests };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The parameters these runs cannot inform, each with the load that would (docs/simulator.md
 * §Calibrate): they stay at their defaults (or the preset's) in the profile.
 */
export function notFitted(runs: CalibrationRun[]): string[] {
  const maxConc = Math.max(0, ...runs.map((r) => r.concurrency ?? r.max_concurrency ?? r.requests.length));
  const maxCtx = Math.max(0, ...runs.flatMap((r) => r.requests.map((q) => q.prompt_tokens + q.output_tokens)));
  const lines = ['not fitted (kept at their defaults; what would inform them):'];
  lines.push('  step_overhead_ms, cpu_overlap   one model cannot tell a per-step CPU cost from the decode step\'s memory time; runs of two model sizes on the same server would');
  lines.push(`  attn_heads_exponent, attn_full_heads_dim, kv_read_factor   need decode at long contexts and large batches (≥ 2k-token contexts at ≥ 32 sequences; these runs reach ${maxCtx} tokens at ≤ ${maxConc} in flight), at more than one tensor-parallel size`);
  lines.push('  admission, swap_bandwidth, KV capacity   need a run that fills the KV cache (preemptions in the server\'s metrics); calibrate takes them from the engine preset');
  lines.push('  frontend_cpu_ms and the per-token front-end costs   need requests that queue at the API server (many short requests sent together)');
  return lines;
}

/**
 * The measured server's settings (--tensor-parallel-size, --max-num-seqs, …, under vLLM's names)
 * as a simulator spec, after checking the hardware and model profiles exist.
 */
export function measuredServerSim(opts: Record<string, unknown>, hardware: string, model: string): SimSpec {
  hardwareProfile(hardware);
  modelProfile(model);
  const flags = specFromFlags(opts, ENGINE_FLAGS.filter((f) => !f.flag.startsWith('--sim-profile')));
  return validateSpec(z.object({ sim: SimSpecSchema.prefault({}) }), { sim: { ...(flags.spec['sim'] as object), hardware } }, { flagPaths: flags.flagPaths, configPath: null }).sim;
}

export async function simCalibrateCommand(dirs: string[], opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const hardware = typeof opts.hardware === 'string' ? opts.hardware : null;
  const model = typeof opts.model === 'string' ? opts.model : null;
  const out = typeof opts.out === 'string' ? opts.out : null;
  if (dirs.length === 0) throw new UserError('sim calibrate: give at least one run directory');
  if (hardware === null) throw new UserError('sim calibrate: --hardware is required (the GPU the runs were measured on, e.g. h100)');
  if (model === null) throw new UserError('sim calibrate: --model is required (the model profile served, e.g. llama-3.1-8b)');
  if (out === null) throw new UserError('sim calibrate: --out FILE is required (where the profile YAML goes)');
  const sim = measuredServerSim(opts, hardware, model);
  const engine = simEngine(sim, model);
  const warn = (line: string): void => void io.stderr.write(`${line}\n`);
  const runs = dirs.map((d) => calibrationRun(d, warn));
  const total = runs.reduce((s, r) => s + r.requests.length, 0);
  io.stderr.write(`sim calibrate: ${runs.length} run(s), ${total} requests; fitting ${model} on ${hardware} by replaying them in virtual time…\n`);
  let lastDraw = 0;
  const res = calibrate({
    hardware,
    model,
    engine,
    runs,
    onProgress: (p) => {
      const now = Date.now();
      if (now - lastDraw < 1000) return;
      lastDraw = now;
      io.stderr.write(`  ${p.evaluations}/${p.max} simulations, objective ${p.objective.toExponential(3)}\n`);
    },
  });
  const lines = [
    `fitted parameters (${res.evaluations} simulations of ${res.requests} requests):`,
    ...Object.keys(res.fitted).map((k) => {
      const key = k as keyof typeof res.fitted;
      return `  ${k.padEnd(22)} ${res.start[key].toPrecision(4).padStart(10)} → ${res.fitted[key].toPrecision(4).padStart(10)}`;
    }),
    `fit error (RMS of simulated / measured − 1 per request):`,
    `  TTFT  before ${pct(res.before.ttft).padStart(7)}   after ${pct(res.after.ttft).padStart(7)}`,
    `  TPOT  before ${pct(res.before.tpot).padStart(7)}   after ${pct(res.after.tpot).padStart(7)}`,
    ...notFitted(runs),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  // The twin's error per figure and load level with the fitted values, as sim validate reports it:
  // on the fitted runs, so an in-sample figure; held out means sim validate on other runs.
  const twin = validateTwin({ hardware, model, engine: { ...engine, ...res.fitted }, runs });
  io.stdout.write(`twin error on the fitted runs (in-sample; sim validate on other runs gives a held-out figure), ${errorBarLines(twin).join('\n')}\n`);
  const round = (x: number): number => Number(x.toPrecision(6));
  const profile: SimProfile = {
    kind: 'infermeter-sim-profile',
    version: 1,
    hardware,
    model,
    engine_preset: sim.engine_preset,
    num_scheduler_steps: sim.num_scheduler_steps ?? 1,
    engine: Object.fromEntries(Object.entries(res.fitted).map(([k, v]) => [k, round(v)])),
    fit: {
      runs: dirs,
      requests: res.requests,
      engine_settings: engine,
      rms_error_before: { ttft: round(res.before.ttft), tpot: round(res.before.tpot) },
      rms_error_after: { ttft: round(res.after.ttft), tpot: round(res.after.tpot) },
    },
  };
  try {
    writeFileSync(out, `# infermeter sim profile: use with --sim-profile ${out} --hardware ${hardware} (docs/simulator.md §Calibrate)\n${stringify(profile)}`);
  } catch (e) {
    throw new UserError(`sim calibrate: cannot write ${out}: ${(e as Error).message}`);
  }
  io.stderr.write(`wrote ${out}\n`);
  return 0;
}
