/**
 * `infermeter plan`: the flags → the capacity plan (src/session/plan/capacity-plan.ts) → the
 * plan as text or JSON, and the exit code.
 */
import { EXIT_CODES } from '../errors/exit-codes.js';
import { renderPlanText } from '../report/plan-report.js';
import { planCapacity, planFlags } from '../session/plan/capacity-plan.js';
import type { CliIo } from './io.js';
import { twinErrorLine } from './twin-error-text.js';

export async function planCommand(opts: Record<string, unknown>, io: CliIo): Promise<number> {
  const flags = planFlags(opts);
  const out = await planCapacity(flags, { log: (line) => io.stderr.write(`${line}\n`) });
  if (out.invalid !== null) {
    io.stderr.write(`plan: ${out.invalid} (exit 5; --allow-invalid accepts it)\n`);
    return EXIT_CODES.INVALID_RUN;
  }
  if (flags.json) io.stdout.write(`${JSON.stringify(out.report, null, 2)}\n`);
  else {
    // Plans from the simulator carry its error bar on the user's runs (sim validate), or say it has none.
    const twin = flags.from === null ? `\n${twinErrorLine(flags.simProfile)}` : '';
    io.stdout.write(`${renderPlanText(out.report)}${twin}\n`);
  }
  if (!out.report.options.some((o) => o.feasible)) {
    io.stderr.write('plan: no option meets the SLOs (reasons above)\n');
    return EXIT_CODES.USAGE;
  }
  return EXIT_CODES.OK;
}
