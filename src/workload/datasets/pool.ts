/**
 * Drawing dataset entries: sampling (shuffled without replacement, with replacement, sequential),
 * lazy token counting and length filters. An entry is counted the first time it is drawn; one
 * outside the filters is dropped from then on and counted in `filtered`.
 */
import { UserError } from '../../errors/user-error.js';
import type { Rng } from '../../util/rng.js';
import { shuffle } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { Tokenizer } from '../tokenizer.js';
import type { Entry } from './entries.js';
import { countInput } from './entries.js';

export interface Counted {
  prompt_tokens: number;
  /** max_tokens, else the reply's token count, else null. */
  output_tokens: number | null;
}

/** An index stream over n entries per `mode`; without-replacement reshuffles after each pass. */
export function indexSampler(n: number, mode: SubWorkloadSpec['sampling'], rng: Rng): () => number {
  if (mode === 'with-replacement') return () => rng.int(0, n - 1);
  const order = Array.from({ length: n }, (_, i) => i);
  let pos = 0;
  if (mode === 'without-replacement') shuffle(rng, order);
  return () => {
    if (pos === n) {
      pos = 0;
      if (mode === 'without-replacement') shuffle(rng, order);
    }
    return order[pos++] as number;
  };
}

export class EntryPool {
  /** undefined: not counted yet; null: outside the filters. */
  private readonly counts: Array<Counted | null | undefined>;
  private readonly pick: () => number;
  filtered = 0;
  private usable = 0;
  private inSum = 0;
  private outSum = 0;
  private outN = 0;

  constructor(
    readonly entries: readonly Entry[],
    private readonly spec: SubWorkloadSpec,
    private readonly tok: Tokenizer,
    rng: Rng,
  ) {
    this.counts = new Array<Counted | null | undefined>(entries.length);
    this.pick = indexSampler(entries.length, spec.sampling, rng);
  }

  /** Counts entry i (once) and applies the length filters; null when filtered out. */
  counted(i: number): Counted | null {
    const have = this.counts[i];
    if (have !== undefined) return have;
    const e = this.entries[i] as Entry;
    const c: Counted = {
      prompt_tokens: countInput(this.tok, e.prompt, e.messages),
      output_tokens: e.max_tokens ?? (e.reply !== null ? this.tok.count(e.reply) : null),
    };
    const s = this.spec;
    const ok = (v: number | null, lo: number | null, hi: number | null): boolean =>
      v === null || ((lo === null || v >= lo) && (hi === null || v <= hi));
    // An entry without an output length passes output filters: there is nothing to judge.
    const total = c.output_tokens === null ? null : c.prompt_tokens + c.output_tokens;
    const keep =
      ok(c.prompt_tokens, s.min_input_len, s.max_input_len) &&
      ok(c.output_tokens, s.min_output_len, s.max_output_len) &&
      ok(total, null, s.max_total_len);
    this.counts[i] = keep ? c : null;
    if (!keep) this.filtered++;
    else {
      this.usable++;
      this.inSum += c.prompt_tokens;
      if (c.output_tokens !== null) {
        this.outSum += c.output_tokens;
        this.outN++;
      }
    }
    return this.counts[i] as Counted | null;
  }

  /**
   * Fails unless some entry passes the filters (scanning in file order until one does), so a run
   * never starts on a dataset it cannot draw from.
   */
  check(path: string, dataset: string, skipped: number, firstProblem: string | undefined): void {
    for (let i = 0; i < this.entries.length; i++) if (this.counted(i)) return;
    throw new UserError(
      `${path}: no usable entry in the ${dataset} dataset (${skipped} malformed, ${this.filtered} outside the length filters)` +
        (firstProblem ? `; first problem: ${firstProblem}` : ''),
    );
  }

  /** The next usable entry per the sampling mode (after check(), at least one exists). */
  next(): { entry: Entry; counts: Counted } {
    for (;;) {
      const i = this.pick();
      const c = this.counted(i);
      if (c) return { entry: this.entries[i] as Entry, counts: c };
    }
  }

  /** Output lengths of every usable entry (counts the whole dataset: for `empirical:dataset`). */
  allOutputLengths(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.entries.length; i++) {
      const c = this.counted(i);
      if (c && c.output_tokens !== null) out.push(c.output_tokens);
    }
    return out;
  }

  /** Figures over the entries counted so far. */
  stats(): { counted: number; usable: number; mean_input_tokens: number | null; mean_output_tokens: number | null } {
    return {
      counted: this.usable + this.filtered,
      usable: this.usable,
      mean_input_tokens: this.usable > 0 ? this.inSum / this.usable : null,
      mean_output_tokens: this.outN > 0 ? this.outSum / this.outN : null,
    };
  }
}
