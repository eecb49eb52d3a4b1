/**
 * The built-in evaluation suite (`--dataset-name eval`, docs/quality.md §Eval suite): items the
 * project wrote itself, shipped with the package, nothing downloaded. One list per task.
 */
import { ARITHMETIC, UNIT_CONVERSION } from './arithmetic.js';
import { CLOSED_BOOK } from './closed-book.js';
import { CODE_TASKS } from './code-tasks.js';
import type { EvalItem } from './item.js';
import { JSON_FORMAT } from './json-format.js';
import { MULTIPLE_CHOICE } from './multiple-choice.js';
import { REFUSAL } from './refusal.js';
import { RETRIEVAL } from './retrieval.js';

export type { EvalItem } from './item.js';

export const EVAL_ITEMS: readonly EvalItem[] = [...ARITHMETIC, ...UNIT_CONVERSION, ...MULTIPLE_CHOICE, ...JSON_FORMAT, ...CODE_TASKS, ...CLOSED_BOOK, ...RETRIEVAL, ...REFUSAL];
