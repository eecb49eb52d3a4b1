/**
 * `infermeter run`: the spec (already parsed) → the run session (src/session/run.ts) → the console.
 */
import type { CliIo } from './io.js';
import type { RunSpec } from '../session/run-spec.js';
import { runSession } from '../session/run.js';
import { signalExitCode } from './signals.js';
import { diskFaultExit, printRun } from './print-run.js';
import { sessionContext } from './session-context.js';
import { distributedRunSession } from '../session/distributed-run.js';
import type { CoordinatorFlags } from '../session/coordinator-options.js';

export async function runCommand(spec: RunSpec, io: CliIo): Promise<number> {
  const out = await runSession(spec, sessionContext(io, spec.output.progress));
  if (!out.started) return signalExitCode(io.signal);
  const code = printRun(out, io, { json: spec.output.json, junit: spec.output.junit, redactor: out.redactor, ...(io.signal ? { signal: io.signal } : {}) });
  return diskFaultExit(code, out.diskFault, io, out.redactor);
}

/** `infermeter run --distributed URL --workers-expected N`: the coordinator session (src/session/distributed-run.ts). */
export async function distributedRunCommand(spec: RunSpec, flags: CoordinatorFlags, io: CliIo): Promise<number> {
  const out = await distributedRunSession(spec, flags, sessionContext(io, spec.output.progress));
  if (!out.started) return signalExitCode(io.signal);
  const code = printRun(out, io, { json: spec.output.json, junit: spec.output.junit, redactor: out.redactor, ...(io.signal ? { signal: io.signal } : {}) });
  return diskFaultExit(code, out.diskFault, io, out.redactor);
}
