/** `infermeter sim run`: the spec → the virtual-time session (src/session/simulate.ts) → the console. */
import type { CliIo } from './io.js';
import type { RunSpec } from '../session/run-spec.js';
import { simulateRun } from '../session/simulate.js';
import { diskFaultExit, printRun } from './print-run.js';
import { sessionContext } from './session-context.js';

export async function simRunCommand(spec: RunSpec, io: CliIo): Promise<number> {
  const done = await simulateRun(spec, sessionContext(io, spec.output.progress));
  return diskFaultExit(printRun(done, io, { json: spec.output.json, junit: spec.output.junit, ...(io.signal ? { signal: io.signal } : {}) }), done.diskFault, io);
}
