/**
 * `infermeter sweep` / `infermeter sim sweep`: the stage plan from the flags → the sweep session
 * (src/session/sweep.ts) → one curve on the console, and the exit code.
 */
import { UserError } from '../errors/user-error.js';
import { parseCommandOptions, SweepStageFlagsSchema } from '../config/command-options.js';
import { renderSweep } from '../report/sweep-summary.js';
import type { StageSequence } from '../sweep/run-sweep.js';
import { formatLoad, parseConcurrencyList, parseRateList } from '../sweep/stages.js';
import { parseBatchSizeList } from '../sweep/batch-sizes.js';
import { stageJudgedBySlos, type SweepResult } from '../sweep/sweep-result.js';
import { runGates } from '../analysis/gates.js';
import { writeGates } from './write-gates.js';
import { sweepExitCode, sweepSession } from '../session/sweep.js';
import { diskFaultExit } from './print-run.js';
import { sessionContext } from './session-context.js';
import type { CliIo } from './io.js';
import type { RunSpec } from '../session/run-spec.js';
import { signalExitCode } from './signals.js';
import type { CoordinatorFlags } from './distributed-flags.js';

/** How the stages are chosen, from the flags; one line naming the flag when they are wrong. */
export function stageSequence(opts: Record<string, unknown>, spec: RunSpec): StageSequence {
  const given = ['requestRates', 'concurrencies', 'auto', 'search', 'batchSizes'].filter((k) => opts[k] !== undefined);
  const names: Record<string, string> = { requestRates: '--request-rates', concurrencies: '--concurrencies', auto: '--auto', search: '--search', batchSizes: '--batch-sizes' };
  if (given.length === 0) throw new UserError('sweep: say which stages to run: --request-rates 1,2,4,inf, --concurrencies 1,4,16,64, --auto 8, --search with --slo, or --batch-sizes 1,8,32 (embeddings, rerank, score)');
  if (given.length > 1) {
    const why = given.includes('batchSizes') ? 'a batch-size sweep runs every stage at one load (--max-concurrency C), so it takes no rate or concurrency list' : 'pick one way to choose the stages';
    throw new UserError(`${given.map((k) => names[k]).join(' and ')}: ${why}`);
  }
  const f = parseCommandOptions(SweepStageFlagsSchema, opts);
  // The fixed load and the kind are checked by the sweep session (session/sweep.ts checkBatchSweep).
  if (f.batchSizes !== undefined) return { mode: 'batch', sizes: parseBatchSizeList(f.batchSizes), load: null };
  if (f.requestRates !== undefined) return { mode: 'list', loads: parseRateList(f.requestRates) };
  if (f.concurrencies !== undefined) return { mode: 'list', loads: parseConcurrencyList(f.concurrencies) };
  if (f.auto !== undefined) return { mode: 'auto', n: f.auto };
  const kind = f.search === true || f.search === 'rate' ? 'rate' : f.search === 'concurrency' ? 'concurrency' : null;
  if (kind === null) throw new UserError(`--search: expected rate or concurrency, got "${String(f.search)}"`);
  if (spec.slos.length === 0) throw new UserError("--search: give the SLOs to hold with --slo, e.g. --slo 'p95(ttft) < 1.5s'");
  const precision = f.precision;
  const integer = kind === 'concurrency';
  for (const [flag, v] of [['--search-start', f.searchStart], ['--search-max', f.searchMax]] as const) {
    if (integer && v !== undefined && !Number.isInteger(v)) throw new UserError(`${flag}: expected a positive integer, got "${v}"`);
  }
  const start = f.searchStart ?? 1;
  const max = f.searchMax ?? 1024;
  if (start > max) throw new UserError(`--search-start ${start} is above --search-max ${max}`);
  return { mode: 'search', kind, options: { start, precision, min: integer ? 1 : Math.min(start, 1) / 64, max, integer } };
}

export async function sweepCommand(spec: RunSpec, opts: Record<string, unknown>, io: CliIo, driver: 'http' | 'virtual', distributed: CoordinatorFlags | null = null): Promise<number> {
  const plan = stageSequence(opts, spec);
  const out = await sweepSession(spec, plan, { driver, distributed }, sessionContext(io, spec.output.progress));
  if (!out.started) return signalExitCode(io.signal);
  const { result, dir, reportPath, redactor } = out;
  const code = sweepExitCode(result, spec.slos.length > 0, io.signal);
  if (spec.output.json) io.stdout.write(`${redactor.scrub(JSON.stringify(result, null, 2))}\n`);
  else {
    const where = result.target.simulated ? `built-in simulator${driver === 'virtual' ? ', virtual time' : ''}` : `${String(result.target.base_url)}${spec.target.endpoint}`;
    io.stdout.write(`${redactor.scrub(renderSweep(result, `infermeter ${driver === 'virtual' ? 'sim sweep' : 'sweep'}: ${String(result.target.model)} @ ${where}`))}\n`);
    if (dir) io.stdout.write(`\nSweep directory: ${dir.path}\n`);
    if (reportPath) io.stdout.write(`Report: ${reportPath}\n`);
  }
  const line = invalidStagesLine(result);
  if (line && !result.sweep.interrupted) io.stderr.write(`${redactor.scrub(line)}\n`);
  // Gates: each stage's validity, and its SLOs where they count (not --auto's probe).
  const gates = result.stages.flatMap((s) => runGates(`stage ${s.index + 1}: ${formatLoad(s.load)}${s.batch_size !== undefined ? `, batch ${s.batch_size}` : ''}`, { validity: s.validity, slos: stageJudgedBySlos(s) ? s.slos : null }));
  writeGates(gates, { junit: spec.output.junit, command: `infermeter.${driver === 'virtual' ? 'sim-sweep' : 'sweep'}`, title: `infermeter sweep: ${spec.name}`, timestamp: result.sweep.started_at }, io);
  return diskFaultExit(code, out.diskFault, io, redactor);
}


/** One line naming the invalid stages and why (the first stage's first reason); null when every stage is valid. */
export function invalidStagesLine(result: SweepResult): string | null {
  const bad = result.stages.filter((s) => s.validity !== null && !s.validity.valid);
  if (bad.length === 0) return null;
  const first = bad[0]!;
  const hatch = result.allow_invalid ? 'accepted with --allow-invalid' : 'exit 5; --allow-invalid accepts it';
  const what = result.search ? `the search's answer rests on invalid stages` : 'invalid sweep';
  return `${what} (${hatch}): ${bad.length} of ${result.stages.length} stages invalid; stage ${first.index + 1} (${formatLoad(first.load)}${first.batch_size !== undefined ? `, batch ${first.batch_size}` : ''}): ${first.validity!.reasons[0] ?? 'invalid'}`;
}
