/**
 * `infermeter analyze RUN_DIR_OR_records.jsonl`: every figure recomputed from records alone,
 * with new SLOs if given; the original run's context is taken from result.json, else spec.json.
 */
import { existsSync } from 'node:fs';
import { UserError } from '../errors/user-error.js';
import { analyzeRun } from '../session/analyze.js';
import { printRun } from './print-run.js';
import { checkWritable } from '../export/junit.js';
import type { CliIo } from './io.js';
import { z } from 'zod';
import { GoodputSchema } from '../config/schema.js';
import { validateSpec } from '../config/load-spec.js';
import { COST_FLAGS, LOAD_FLAGS, specFromFlags, VALIDITY_FLAGS, VLLM_JSON_FLAGS } from './run-flags.js';
import { SloListSchema } from '../session/spec-parts.js';
import { isSweepDir } from '../store/run-bundle.js';

/** A sweep directory: its stages re-judged (--slo, --goodput), as analyze-sweep.ts says. */
async function analyzeSavedSweep(path: string, opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const flags = specFromFlags(opts, LOAD_FLAGS.filter((f) => f.path[0] === 'goodput' || f.path[0] === 'slos'));
  const given = validateSpec(z.object({ goodput: GoodputSchema, slos: SloListSchema }), flags.spec, { flagPaths: flags.flagPaths, configPath: null });
  // Imported here: a sweep's code (the stages, the simulator's profiles) is not needed for a run.
  const { analyzeSweep } = await import('./analyze-sweep.js');
  return analyzeSweep(path, opts, { given: flags.spec.slos === undefined ? null : given.slos, goodput: flags.spec.goodput === undefined ? null : given.goodput! }, io);
}


/** --slo and --goodput, checked before the path is looked at: a malformed SLO is named as such, whatever the path. */
function checkObjectiveFlags(opts: Record<string, unknown>): void {
  const flags = specFromFlags(opts, LOAD_FLAGS.filter((f) => f.path[0] === 'goodput' || f.path[0] === 'slos'));
  validateSpec(z.object({ goodput: GoodputSchema, slos: SloListSchema }), flags.spec, { flagPaths: flags.flagPaths, configPath: null });
}

/**
 * `--slo` and `--goodput` take several values, so `analyze --slo 'p95(ttft) < 1s' RUN` gives RUN
 * to --slo and none to <run>: the last value of either list that names an existing path is taken
 * back as the run (an SLO or per-request SLO is never a path).
 */
export function takeBackRunPath(path: string | undefined, opts: Record<string, unknown>): string {
  if (path !== undefined) return path;
  for (const key of ['slo', 'goodput']) {
    const list = opts[key];
    if (Array.isArray(list) && list.length > 0 && typeof list.at(-1) === 'string' && existsSync(list.at(-1) as string)) {
      const run = list.pop() as string;
      if (list.length === 0) delete opts[key];
      return run;
    }
  }
  throw new UserError("analyze: give the run directory, sweep directory or records.jsonl to analyze (after --slo/--goodput values, or before them)");
}

export async function analyzeCommand(given: string | undefined, opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const path = takeBackRunPath(given, opts);
  checkObjectiveFlags(opts);
  if (typeof opts.junit === 'string') checkWritable(opts.junit, '--junit');
  if (isSweepDir(path)) return analyzeSavedSweep(path, opts, io);
  // The same schema as a run spec's, so --goodput and the vLLM JSON flags read as they do for `run`.
  const flags = specFromFlags(opts, [...LOAD_FLAGS.filter((f) => f.path[0] === 'goodput' || f.path[0] === 'slos'), ...VLLM_JSON_FLAGS, ...COST_FLAGS, ...VALIDITY_FLAGS]);
  const done = await analyzeRun(path, { spec: flags.spec, flagPaths: flags.flagPaths, vllmJson: typeof opts.vllmJson === 'string' ? opts.vllmJson : null, spansFile: typeof opts.spans === 'string' ? opts.spans : null }, { env: io.env, log: (line) => io.stderr.write(`${line}\n`) });
  return printRun(done, io, { json: opts.json === true, junit: typeof opts.junit === 'string' ? opts.junit : null });
}
