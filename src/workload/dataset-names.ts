/** The dataset names (vLLM `--dataset-name`): apart from spec.ts so the flag help does not load zod. */
export const DATASET_NAMES = ['random', 'sharegpt', 'jsonl', 'prefix', 'trace', 'hf', 'eval', 'random-mm', 'images', 'random-audio', 'audio'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];
