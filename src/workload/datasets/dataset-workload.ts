/**
 * The Workload over a file dataset's entries (sharegpt, jsonl, hf): draws from an EntryPool,
 * output length from `output_len` when set, else the entry's (max_tokens or reply length), else
 * `random_output_len`.
 */
import { lengthSampler, nominalMean } from '../lengths.js';
import { createRng } from '../../util/rng.js';
import { conversationSessions, describeSessions, sessionWorkload } from '../sessions.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { TextMaker } from '../synthetic.js';
import type { AnswerSource, WorkItem, Workload } from '../types.js';
import type { Entry, Issues } from './entries.js';
import { EntryPool } from './pool.js';
import type { ImageStore } from '../media/files.js';
import type { AudioStore } from '../media/audio.js';
import type { MediaItem } from '../../util/media.js';

export interface DatasetInfo {
  dataset: string;
  path: string;
  maker: TextMaker;
  issues: Issues;
  kind: 'completions' | 'chat';
  /** The entries' images, read and checked (media/files.ts); `sizeOnly` for a lengths-only workload. */
  images?: { store: ImageStore; sizeOnly: boolean };
  /** The entries' audio clips (JSONL `audio`), read and checked (media/audio.ts). */
  audio?: { store: AudioStore; sizeOnly: boolean };
}

/** A Workload over parsed entries; throws when no entry is usable. */
export function entriesWorkload(entries: readonly Entry[], spec: SubWorkloadSpec, seed: number, info: DatasetInfo): Workload {
  const tok = info.maker.tokenizer;
  const rng = createRng(`${seed}:${info.dataset}`);
  const pool = new EntryPool(entries, spec, tok, rng.fork());
  pool.check(info.path, info.dataset, info.issues.skipped, info.issues.examples[0]);
  const outDist = spec.output_len;
  const fromDataset = outDist?.kind === 'empirical' && outDist.from_dataset === true && !outDist.values;
  const datasetOut = fromDataset ? pool.allOutputLengths() : undefined;
  const outSample = outDist ? lengthSampler(outDist, rng.fork(), datasetOut) : null;
  const fallbackOut = spec.random_output_len;
  const describe = (): Record<string, unknown> => {
    const st = pool.stats();
    return {
      dataset: info.dataset,
      path: info.path,
      tokenizer: tok.name,
      token_counts: tok.exact ? 'exact' : 'estimate',
      entries: entries.length,
      skipped: info.issues.skipped,
      skipped_examples: info.issues.examples,
      counted: st.counted,
      filtered: pool.filtered,
      sampling: spec.sampling,
      mean_input_tokens: st.mean_input_tokens,
      mean_output_tokens: outDist ? nominalMean(outDist, datasetOut) : (st.mean_output_tokens ?? fallbackOut),
      ...(spec.session_turns ? describeSessions(spec) : {}),
    };
  };
  const countTokens = (text: string): number => tok.count(text);
  if (spec.session_turns) {
    const make = conversationSessions(() => pool.next(), spec, rng.fork(), info.maker, info.kind, outSample);
    return sessionWorkload(make, { skipped: info.issues.skipped, describe, countTokens });
  }
  const img = info.images;
  const snd = info.audio;
  const mediaOf = (e: Entry): MediaItem[] | null => {
    const m: MediaItem[] = [];
    if (e.images && img) for (const r of e.images) m.push(img.sizeOnly ? img.store.sizeOnly(r) : img.store.item(r));
    if (e.audio !== undefined && snd) m.push(snd.store.item(e.audio, snd.sizeOnly));
    return m.length > 0 ? m : null;
  };
  const kinds = [...(img ? ['image' as const] : []), ...(snd ? ['audio' as const] : [])];
  return {
    skipped: info.issues.skipped,
    next(): WorkItem {
      const { entry: e, counts } = pool.next();
      const media = mediaOf(e);
      return {
        prompt: e.prompt,
        messages: e.messages,
        prompt_tokens: counts.prompt_tokens,
        max_tokens: Math.max(1, outSample ? outSample() : (counts.output_tokens ?? fallbackOut)),
        task: e.task,
        expected: e.expected,
        ...(e.check ? { check: e.check } : {}),
        ...(media ? { media } : {}),
        session: null,
        turn: null,
      };
    },
    ...(kinds.length > 0 ? { media: kinds } : {}),
    answerSources: () => answerSources(entries),
    describe,
    countTokens,
  };
}

/** Entries with a check: what a simulator's answer mode needs to answer their prompts. */
function answerSources(entries: readonly Entry[]): AnswerSource[] {
  const out: AnswerSource[] = [];
  for (const e of entries) if (e.check) out.push({ prompt: e.prompt, task: e.task, check: e.check, reference: e.reference ?? null, wrong: e.wrong ?? null });
  return out;
}
