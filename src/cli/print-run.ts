/**
 * A finished run on the console: the JSON (--json) or the summary, the server's side, where it was
 * written, the validity line; and its exit code (errors/exit-codes.ts decides). Used by `run`,
 * `sim run`, `run --distributed` and `analyze`.
 */
import { tracesLine } from '../observe/otlp/trace-join.js';
import { slowestLine } from '../report/traces-summary.js';
import { forwardLine } from '../observe/otlp/forward-line.js';
import { renderSummary } from '../report/console-summary.js';
import { renderColdStart, renderServerSummary } from '../report/server-summary.js';
import { runExitCode, type CompletedRun } from '../session/finish-run.js';
import { Redactor } from '../util/redact.js';
import type { CliIo } from './io.js';
import { runGates } from '../analysis/gates.js';
import { writeGates } from './write-gates.js';
import { EXIT_CODES } from '../errors/exit-codes.js';

/** Prints the run; returns its exit code. `signal`: the command's (absent for `analyze`, which stops nothing live). */
export function printRun(done: CompletedRun, io: CliIo, o: { json: boolean; redactor?: Redactor; signal?: AbortSignal; junit?: string | null }): number {
  const { result, dir, reportPath } = done;
  const suite = result.run.id ?? result.run.name;
  writeGates(runGates(suite, { validity: result.validity, slos: result.slos }), { junit: o.junit, command: `infermeter.${result.run.driver === 'virtual' ? 'sim-run' : 'run'}`, title: `infermeter: ${suite}`, timestamp: result.run.started_at }, io);
  const redactor = o.redactor ?? new Redactor([]);
  const code = runExitCode(result, done.allowInvalid, o.signal);
  if (o.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const where = result.target.simulated ? `built-in simulator (${result.target.endpoint})` : `${result.target.base_url}${result.target.endpoint}`;
    const title = `infermeter ${result.run.driver === 'virtual' ? 'sim run' : 'run'}: ${result.target.model} @ ${where}`;
    const cap = (result.load as Record<string, unknown> | undefined)?.max_concurrency;
    const maxConcurrency = typeof cap === 'number' ? cap : cap === null ? null : undefined; // undefined: the saved load does not say
    const summary = renderSummary(result.metrics, { title, validity: result.validity, slos: result.slos, exitCode: code, byTask: result.by_task, byTurn: result.by_turn, cost: result.cost, quality: result.quality ?? null, percentileMetrics: done.percentileMetrics ?? null, ...(maxConcurrency === undefined ? {} : { maxConcurrency }) });
    io.stdout.write(`${redactor.scrub(summary)}\n`);
    if (result.cold_start) io.stdout.write(`\n${renderColdStart(result.cold_start)}\n`);
    if (result.traces) {
      const headline = slowestLine(result.traces);
      io.stdout.write(`\n${headline ? `${headline}\n` : ''}${tracesLine(result.traces)}\n`);
    }
    if (result.traces?.forward) io.stdout.write(`${forwardLine(result.traces.forward)}\n`);
    if (result.server) {
      const server = renderServerSummary(result.server, result.metrics.latency.ttft_ms.mean ?? null);
      io.stdout.write(`\n${redactor.scrub(server)}\n`);
    }
    if (dir) io.stdout.write(`\nRun directory: ${dir.path}\n`);
    if (reportPath) io.stdout.write(`Report: ${reportPath}\n`);
  }
  const v = result.validity;
  if (v && !v.valid && !(result.run.interrupted && o.signal?.aborted)) io.stderr.write(`${redactor.scrub(invalidLine(v.reasons, done.allowInvalid))}\n`);
  return code;
}

/** One line for an invalid measurement: the first reason, and what the exit code is. */
export function invalidLine(reasons: readonly string[], allowInvalid: boolean): string {
  const hatch = allowInvalid ? 'accepted with --allow-invalid' : 'exit 5; --allow-invalid accepts it';
  return `invalid run (${hatch}): ${reasons[0]}${reasons.length > 1 ? ` (+${reasons.length - 1} more, see the verdict)` : ''}`;
}

/**
 * After the summary: a session's disk-fault line (the results folder failed mid-run: what was
 * kept where, store/records-file.ts) goes to stderr and the command exits DISK_FAULT; without
 * one the command's own code stands. run, sim run, sweeps and `run --distributed` end with it.
 */
export function diskFaultExit(code: number, diskFault: string | undefined, io: CliIo, redactor?: Redactor): number {
  if (diskFault === undefined) return code;
  io.stderr.write(`${redactor ? redactor.scrub(diskFault) : diskFault}\n`);
  return EXIT_CODES.DISK_FAULT;
}
