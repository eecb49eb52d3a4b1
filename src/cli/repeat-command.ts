/** `run --repeat N` and `sim run --repeat N`: the spec → the repeat session (src/session/repeat.ts) → the console. */
import type { CliIo } from './io.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import type { RunSpec } from '../session/run-spec.js';
import { checkRepeat, runRepeated } from '../session/repeat.js';
import { renderRepeatsSummary } from '../report/repeats-summary.js';
import { sessionContext } from './session-context.js';

/** Outputs that name one file: N runs would write it N times over. */
function refuseSingleFileOutputs(spec: RunSpec): void {
  if (spec.output.vllm_json) throw new UserError('--repeat with --vllm-json: each run would overwrite the file; compare the repeat directory instead');
  if (spec.output.junit) throw new UserError('--repeat with --junit: not supported; each repeat-k directory holds its own result.json');
}

export async function repeatCommand(spec: RunSpec, repeat: unknown, driver: 'http' | 'virtual', io: CliIo): Promise<number> {
  const n = checkRepeat(repeat);
  refuseSingleFileOutputs(spec);
  const out = await runRepeated(spec, { repeat: n, driver }, sessionContext(io, spec.output.progress));
  const scrub = (s: string) => (out.redactor ? out.redactor.scrub(s) : s);
  if (spec.output.json) io.stdout.write(`${scrub(JSON.stringify(out.file, null, 2))}\n`);
  else io.stdout.write(`${scrub(renderRepeatsSummary(out.file, out.dir))}\n`);
  if (out.diskFault !== undefined) {
    io.stderr.write(`${scrub(out.diskFault)}\n`);
    return EXIT_CODES.DISK_FAULT;
  }
  return out.exitCode;
}
