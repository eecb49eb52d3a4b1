/** A command's gates to --junit and, when GitHub Actions names one, the job summary (failed first). */
import type { Gate } from '../analysis/gates.js';
import { appendStepSummary, gatesMarkdown } from '../export/ci-summary.js';
import { junitXml, writeJunit } from '../export/junit.js';
import type { CliIo } from './io.js';

export function writeGates(gates: readonly Gate[], o: { junit: string | null | undefined; command: string; title: string; timestamp: string }, io: CliIo): void {
  if (o.junit) writeJunit(o.junit, junitXml(o.command, gates, { timestamp: o.timestamp }));
  const step = appendStepSummary(`### ${o.title}\n\n${gatesMarkdown(gates)}`, io.env);
  if (step.error) io.stderr.write(`warning: ${step.error}\n`);
}
