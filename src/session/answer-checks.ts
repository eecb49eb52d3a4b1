/**
 * The answer checks of a run over HTTP (issue 15, docs/quality.md): records of checked requests
 * go through an `AnswerEvaluation` (src/runner/answer-evaluation.ts) with the quality module's
 * evaluator before they reach the records writer.
 */
import { availableParallelism } from 'node:os';
import type { RequestRecord } from '../record/record.js';
import { evaluateCheck } from '../quality/evaluate.js';
import { AnswerEvaluation } from '../runner/answer-evaluation.js';

/**
 * `workers` = 0: the load runs on this thread, so evaluation waits for its end. One evaluation per
 * core at a time: a code check runs a node process, and more would only queue for the CPU.
 */
export function answerEvaluation(workers: number, sink: (rec: RequestRecord) => void): AnswerEvaluation {
  return new AnswerEvaluation({ evaluate: evaluateCheck, sink, concurrency: Math.max(1, availableParallelism()), deferUntilDrain: workers === 0 });
}

/** Waits for every check still being evaluated, saying so when that takes a moment. */
export async function finishAnswerChecks(ev: AnswerEvaluation, log: (line: string) => void): Promise<void> {
  if (ev.pending > 0) log(`evaluating ${ev.pending} answer check${ev.pending === 1 ? '' : 's'}…`);
  await ev.drain();
  if (ev.failures > 0) log(`warning: ${ev.failures} answer check${ev.failures === 1 ? '' : 's'} could not be evaluated; their records' quality.reason says why`);
}
