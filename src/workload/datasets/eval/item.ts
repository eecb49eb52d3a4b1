/**
 * One item of the built-in evaluation suite (`--dataset-name eval`, docs/quality.md §Eval suite):
 * the prompt, its check (the same `check` object a JSONL entry carries), a correct `reference`
 * answer and a deliberately `wrong` one. Tests pin the suite with both: every reference passes its
 * check and every wrong answer fails it. The simulator's answer mode streams one or the other.
 */
export interface EvalItem {
  task: string;
  prompt: string;
  check: Record<string, unknown>;
  reference: string;
  wrong: string;
  /** Output budget sent as max_tokens: room for the reference with margin. */
  max_tokens: number;
}
