/**
 * The simulator's answer key (docs/quality.md §Simulator answer mode), built from a dataset's
 * checked entries: prompt → correct, wrong and (JSON tasks) malformed answer texts. `run` builds it
 * from its own workload for the built-in simulator; `sim serve --answers` from a named dataset.
 */
import { malformedJson, referenceFor, wrongFor } from '../quality/answer-texts.js';
import type { AnswerKey, KnownAnswer } from '../sim/index.js';
import type { AnswerSource } from '../workload/index.js';
import { WorkloadSpecSchema, createWorkload } from '../workload/index.js';
import { UserError } from '../errors/user-error.js';

/** Entries the simulator can answer: those with a reference (given, or derived from the check). */
export function buildAnswerKey(sources: readonly AnswerSource[]): AnswerKey {
  const key = new Map<string, KnownAnswer>();
  for (const s of sources) {
    const reference = s.reference ?? referenceFor(s.check);
    if (reference === null) continue;
    key.set(s.prompt, {
      reference,
      wrong: s.wrong ?? wrongFor(s.check, reference),
      ...(s.check.kind === 'json' ? { malformed: malformedJson(reference) } : {}),
      ...(s.check.kind === 'closed_book' && !s.check.answerable ? { unknowable: true } : {}),
    });
  }
  return key;
}

/** `sim serve --answers NAME`: `eval` (the built-in suite) or a JSONL file with checks. */
export async function answerKeyFrom(name: string): Promise<AnswerKey> {
  const spec = WorkloadSpecSchema.parse(name === 'eval' ? { dataset_name: 'eval' } : { dataset_name: 'jsonl', dataset_path: name });
  const w = await createWorkload(spec, { seed: 0, endpointKind: 'chat', warn: () => {} });
  const key = buildAnswerKey(w.answerSources?.() ?? []);
  if (key.size === 0) throw new UserError(`--answers ${name}: no entry has a check with a known answer (docs/quality.md)`);
  return key;
}
