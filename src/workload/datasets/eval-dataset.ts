/**
 * `--dataset-name eval`: the built-in evaluation suite (./eval/) as dataset entries, each with its
 * check parsed like a JSONL entry's (so a broken item fails the same way a user's line would).
 */
import { parseCheck } from '../../quality/parse-check.js';
import type { Entry } from './entries.js';
import { EVAL_ITEMS } from './eval/index.js';

export const EVAL_SOURCE = 'builtin:eval';

export function evalEntries(): Entry[] {
  return EVAL_ITEMS.map((item, i) => ({
    prompt: item.prompt,
    messages: null,
    max_tokens: item.max_tokens,
    reply: null,
    expected: item.reference,
    task: item.task,
    check: parseCheck(item.check, `${EVAL_SOURCE}:${i + 1}`),
    reference: item.reference,
    wrong: item.wrong,
    line: i + 1,
  }));
}
