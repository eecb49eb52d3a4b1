/**
 * Batches of inputs (embeddings, --batch-size B): each request carries B consecutive items of the
 * workload, so a run of N requests sends N·B inputs, drawn exactly as B·N single requests would
 * draw them (same seed, same order). A sharded run batches before it shards, so threads and
 * worker processes split whole batches.
 */
import type { Session, WorkItem, Workload } from './types.js';

/** One request of B items: the first's prompt, every prompt in `inputs`, their token counts summed. */
export function batchItems(items: readonly WorkItem[]): WorkItem {
  const first = items[0]!;
  let tokens: number | null = 0;
  for (const it of items) tokens = tokens === null || it.prompt_tokens === null ? null : tokens + it.prompt_tokens;
  return { ...first, messages: null, prompt_tokens: tokens, max_tokens: null, inputs: items.map((it) => it.prompt) };
}

/** The workload with every request a batch of `size` items; size 1 returns it unchanged. */
export function batchWorkload(w: Workload, size: number): Workload {
  if (size <= 1) return w;
  const next = (): WorkItem => {
    const items: WorkItem[] = [];
    for (let i = 0; i < size; i++) items.push(w.next());
    return batchItems(items);
  };
  const bounds = w.lengthBounds?.bind(w);
  return {
    next,
    get skipped() {
      return w.skipped;
    },
    describe: () => ({ ...w.describe(), batch_size: size }),
    ...(w.countTokens ? { countTokens: w.countTokens.bind(w) } : {}),
    ...(bounds
      ? {
          lengthBounds: () => {
            const b = bounds();
            return { prompt: b.prompt, output: 0 };
          },
        }
      : {}),
  } satisfies Omit<Workload, 'nextSession'> & { nextSession?: () => Session };
}
