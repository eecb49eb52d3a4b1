/**
 * `run --repeat N` and `sim run --repeat N`: the same spec N times, each run with its own draws,
 * into one repeat directory — `<result_dir>/<timestamp>-<name>/repeat-1 … repeat-N/` (ordinary run
 * directories, each also in the history) and `repeats.json` (docs/repeats.md): per figure the
 * mean over runs, the between-run standard deviation and a t-interval of the mean; each run's
 * verdict; the spec hash (analysis/comparable-spec.ts). Prints nothing.
 *
 * Repeat k draws afresh: seed = the spec's seed + k − 1 (so repeat 1 is the plain run, and the
 * whole repeat replays from its spec), and a prompt salt of its own — against a server a fresh
 * random one (run-target.ts saltPrompts), a given salt `s` becomes `s-r<k>`, `""` (replay
 * exactly) stays — so no run is served from the cache another filled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { combineOutcomes, exitCodeFor, type ExitCode, type Outcome } from '../errors/exit-codes.js';
import { createRunDir } from '../store/run-dir.js';
import { specHash } from '../analysis/comparable-spec.js';
import { spreadOverRuns } from '../analysis/over-runs.js';
import { figuresOfRun, KEY_FIGURES } from '../analysis/compare/key-figures.js';
import { allObjectivesPass } from '../metrics/index.js';
import { REPEAT_CONFIDENCE, REPEATS_SCHEMA, type RepeatRunEntry, type RepeatsFile } from '../report/repeats-json.js';
import type { RunResult } from '../report/result-json.js';
import { runOutcome, type CompletedRun } from './finish-run.js';
import { runSession, type RunPlacement } from './run.js';
import { simulateRun } from './simulate.js';
import type { RunSpec } from './run-spec.js';
import type { SessionContext } from './context.js';
import type { Redactor } from '../util/redact.js';

export interface RepeatOptions {
  repeat: number;
  /** `sim run` (virtual time) or `run` (HTTP, the built-in simulator when no base_url). */
  driver: 'http' | 'virtual';
}

export interface RepeatOutcome {
  dir: string;
  file: RepeatsFile;
  /** Each finished run, in order. */
  runs: CompletedRun[];
  /** The worst of the runs' outcomes, through the one mapping (errors/exit-codes.ts). */
  exitCode: ExitCode;
  redactor: Redactor | null;
  /** A results folder that failed mid-run (run.ts): the one line; the caller exits DISK_FAULT. */
  diskFault?: string;
}

/** The spec of repeat k (1-based): its own seed and prompt salt. */
export function repeatSpec(spec: RunSpec, k: number): RunSpec {
  const salt = spec.workload.prompt_salt;
  return {
    ...spec,
    load: { ...spec.load, seed: spec.load.seed + k - 1 },
    workload: { ...spec.workload, prompt_salt: salt === null || salt === '' ? salt : `${salt}-r${k}` },
  };
}

export function checkRepeat(n: unknown): number {
  const v = typeof n === 'string' ? Number(n) : n;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new UserError(`--repeat: expected a whole number of runs, at least 1, got "${String(n)}"`);
  return v;
}

function entryOf(k: number, spec: RunSpec, result: RunResult): RepeatRunEntry {
  return {
    index: k,
    dir: `repeat-${k}`,
    run_id: result.run.id,
    seed: spec.load.seed,
    prompt_salt: spec.workload.prompt_salt,
    valid: result.validity ? result.validity.valid : null,
    reasons: result.validity?.reasons ?? [],
    slo_pass: result.slos ? allObjectivesPass(result.slos) : null,
    interrupted: result.run.interrupted,
  };
}

/** The figures over the runs that measured the service (valid, not interrupted). */
export function repeatFigures(results: readonly RunResult[]): { figures: RepeatsFile['figures']; used: number } {
  const used = results.filter((r) => r.validity?.valid !== false && !r.run.interrupted);
  const figures: RepeatsFile['figures'] = {};
  const per = used.map((r) => figuresOfRun(r.metrics, null));
  for (const f of KEY_FIGURES) {
    const values = per.map((x) => x[f.id]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    if (values.length !== used.length || values.length === 0) continue;
    figures[f.id] = { ...spreadOverRuns(values, REPEAT_CONFIDENCE)!, values };
  }
  return { figures, used: used.length };
}

function savedSpecHash(dir: string, driver: string, simulated: boolean): string | null {
  try {
    return specHash(JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')), { simulated, driver });
  } catch {
    return null;
  }
}

/** N runs of `spec`, one after another; a stop signal ends the loop after the run it stopped. */
export async function runRepeated(spec: RunSpec, o: RepeatOptions, ctx: SessionContext = {}): Promise<RepeatOutcome> {
  const n = checkRepeat(o.repeat);
  if (!spec.output.save) throw new UserError('--repeat: needs the run directories (leave out --no-save)');
  const log = (line: string) => ctx.log?.(line);
  const startedAt = new Date();
  const top = createRunDir(spec.output.result_dir, spec.name, startedAt);
  const runs: CompletedRun[] = [];
  const entries: RepeatRunEntry[] = [];
  const outcomes: Outcome[] = [];
  let redactor: Redactor | null = null;
  let diskFault: string | undefined;
  const write = (): RepeatsFile => {
    const { figures, used } = repeatFigures(runs.map((r) => r.result));
    const first = runs[0];
    const file: RepeatsFile = {
      schema: REPEATS_SCHEMA,
      id: top.id,
      name: spec.name,
      driver: o.driver,
      started_at: startedAt.toISOString(),
      ended_at: new Date().toISOString(),
      spec_hash: first?.dir ? savedSpecHash(first.dir.path, first.result.run.driver, first.result.target.simulated) : null,
      repeats_asked: n,
      runs: entries,
      figures,
      runs_in_figures: used,
    };
    top.writeJson('repeats.json', file);
    return file;
  };
  for (let k = 1; k <= n; k++) {
    if (ctx.signal?.aborted) break;
    const s = repeatSpec(spec, k);
    log(`repeat ${k}/${n}: seed ${s.load.seed}…`);
    const at: RunPlacement = { path: join(top.path, `repeat-${k}`), id: `${top.id}.repeat-${k}` };
    let done: CompletedRun;
    if (o.driver === 'virtual') {
      const sim = await simulateRun(s, ctx, at);
      done = sim;
      if (sim.diskFault !== undefined) diskFault = sim.diskFault;
    } else {
      const out = await runSession(s, ctx, at);
      redactor = out.redactor;
      if (!out.started) break;
      done = out;
      if (out.diskFault !== undefined) diskFault = out.diskFault;
    }
    runs.push(done);
    entries.push(entryOf(k, s, done.result));
    outcomes.push(runOutcome(done.result, done.allowInvalid, ctx.signal));
    const v = done.result.validity;
    log(`repeat ${k}/${n}: ${v && !v.valid ? `invalid (${v.reasons[0] ?? 'see its verdict'})` : 'valid'}, TTFT p99 ${fmt(done.result.metrics.latency.ttft_ms.p99)} ms, ${done.result.metrics.requests.total} requests → ${at.path}`);
    write();
    if (diskFault !== undefined) break;
  }
  const file = write();
  return { dir: top.path, file, runs, exitCode: outcomes.length > 0 ? exitCodeFor(combineOutcomes(outcomes)) : exitCodeFor({ stoppedBy: ctx.signal?.aborted ? { reason: ctx.signal.reason } : null, valid: null, allowInvalid: false, gatesPass: null }), redactor, ...(diskFault !== undefined ? { diskFault } : {}) };
}

const fmt = (v: number | null | undefined): string => (typeof v === 'number' ? (v >= 100 ? v.toFixed(1) : v.toFixed(2)) : '—');
