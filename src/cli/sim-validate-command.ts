/**
 * `infermeter sim validate RUN_DIR… --hardware h100 --model llama-3.1-8b [--sim-profile P]`:
 * replays saved runs of a real server in the simulator (same requests, same send times or
 * concurrency; src/sim/calibrate/validate.ts) and prints, per load level and per figure, how far
 * the twin is from the measurement. With --sim-profile the error bar is recorded in the profile,
 * so `plan --sim-profile` can print it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml, stringify } from 'yaml';
import { UserError } from '../errors/user-error.js';
import { validateTwin, type EngineConfig, type ValidationSummary } from '../sim/index.js';
import { validationLines } from './twin-error-text.js';
import { simEngineOverrides } from '../config/schema.js';
import { forgetSimProfile, loadSimProfile } from '../config/sim-profile.js';
import { simEngine, simProfileEngineFields } from '../session/builtin-sim.js';
import { calibrationRun, measuredServerSim } from './sim-calibrate-command.js';
import type { CliIo } from './io.js';

export async function simValidateCommand(dirs: string[], opts: Record<string, unknown>, io: CliIo): Promise<number> {
  if (dirs.length === 0) throw new UserError('sim validate: give at least one run directory');
  const profilePath = typeof opts.simProfile === 'string' ? opts.simProfile : null;
  const profile = profilePath === null ? null : loadSimProfile(profilePath);
  const hardware = typeof opts.hardware === 'string' ? opts.hardware : (profile?.hardware ?? null);
  const model = typeof opts.model === 'string' ? opts.model : (profile?.model ?? null);
  if (hardware === null) throw new UserError('sim validate: --hardware is required (the GPU the runs were measured on, e.g. h100), or a --sim-profile that names it');
  if (model === null) throw new UserError('sim validate: --model is required (the model profile served, e.g. llama-3.1-8b), or a --sim-profile that names it');
  const sim = measuredServerSim(opts, hardware, model);
  // A profile's cost parameters and engine generation, under any engine flag given here.
  const engine: Partial<EngineConfig> = profilePath === null ? simEngine(sim, model) : { ...simProfileEngineFields(profilePath, hardware, model), ...simEngineOverrides(sim) };
  const warn = (line: string): void => void io.stderr.write(`${line}\n`);
  const runs = dirs.map((d) => calibrationRun(d, warn, 'sim validate'));
  io.stderr.write(`sim validate: replaying ${runs.length} run(s) on the twin (${model} on ${hardware}${profilePath ? `, profile ${profilePath}` : ', default parameters'})…\n`);
  const v = validateTwin({ hardware, model, engine, runs, onRun: (k, n) => void io.stderr.write(`  ${k}/${n} replayed\n`) });
  io.stdout.write(`${validationLines(v).join('\n')}\n`);
  if (profilePath !== null) {
    recordValidation(profilePath, v, dirs);
    io.stderr.write(`recorded the error bar in ${profilePath} (plan --sim-profile prints it)\n`);
  }
  return 0;
}

/** Writes the error bar into the profile file (its `validation` block), keeping everything else. */
function recordValidation(path: string, v: ValidationSummary, dirs: string[]): void {
  const text = readFileSync(path, 'utf8');
  const doc = parseYaml(text) as Record<string, unknown>;
  const round = (x: number): number => Number(x.toFixed(4));
  doc['validation'] = {
    runs: dirs,
    requests: v.requests,
    load_levels: v.levels.map((l) => l.load),
    error_bar: Object.fromEntries(
      Object.entries(v.error_bar).filter(([, e]) => Number.isFinite(e.median_abs_error)).map(([f, e]) => [f, { median_abs_error: round(e.median_abs_error), max_abs_error: round(e.max_abs_error) }]),
    ),
  };
  const header = text.startsWith('#') ? `${text.split('\n')[0]}\n` : '';
  try {
    writeFileSync(path, `${header}${stringify(doc)}`);
    forgetSimProfile(path);
  } catch (e) {
    throw new UserError(`sim validate: cannot write ${path}: ${(e as Error).message}`);
  }
}
