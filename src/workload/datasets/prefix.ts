/**
 * Shared-prefix groups (`--dataset-name prefix`), to measure prefix-cache gains: G groups, each
 * with its own P-token prefix, and a distinct random suffix per request (length: the input
 * distribution). Which group a request uses:
 * - `random`: uniform over groups; `round-robin`: 0, 1, …, G−1, 0, …;
 * - `repeat` (prefix-repetition mode): each prefix for R consecutive requests, then the next.
 *
 * Expected shared-token fraction (an ideal prefix cache that never evicts, token granularity):
 *   steady state  f∞ = P / (P + S̄)                     (S̄ = mean suffix tokens)
 *   over n requests f(n) = (n − D(n)) · P / (n · (P + S̄)), D(n) = distinct groups seen by then:
 *     random: G · (1 − (1 − 1/G)ⁿ); round-robin: min(n, G); repeat: min(G, ⌈n/R⌉).
 * A cache with block size b can reuse only ⌊P/b⌋·b prefix tokens per hit.
 */
import { lengthSampler, nominalMean } from '../lengths.js';
import { createRng } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { TextMaker } from '../synthetic.js';
import type { WorkItem, Workload } from '../types.js';
import { inputDist, outputDist, outputSampler, syntheticBounds } from './random.js';
import { blockIds } from './blocks.js';

export function expectedSharedFraction(
  P: number,
  meanSuffix: number,
  G: number,
  mode: SubWorkloadSpec['prefix_mode'],
  repeat: number,
  n?: number,
): number {
  if (P + meanSuffix === 0) return 0;
  const steady = P / (P + meanSuffix);
  if (n === undefined || n <= 0) return steady;
  const distinct = mode === 'random' ? G * (1 - (1 - 1 / G) ** n) : mode === 'round-robin' ? Math.min(n, G) : Math.min(G, Math.ceil(n / repeat));
  return ((n - distinct) / n) * steady;
}

export function prefixWorkload(spec: SubWorkloadSpec, seed: number, maker: TextMaker, numPrompts?: number): Workload {
  const G = spec.prefix_num_groups;
  const P = spec.prefix_len;
  const R = spec.prefix_repeat;
  const B = spec.prefix_block_size;
  const prefixes = Array.from({ length: G }, (_, g) => maker.text(createRng(`${seed}:prefix:${g}`), P));
  const perGroup = Math.floor(P / B);
  const groupBlocks = Array.from({ length: G }, (_, g) => Array.from({ length: perGroup }, (_, k) => g * perGroup + k));
  let nextFresh = G * perGroup;
  const fresh = (): number => nextFresh++;
  const rng = createRng(`${seed}:prefix`);
  const sLen = lengthSampler(inputDist(spec), rng.fork());
  const outLen = outputSampler(spec, rng.fork());
  const pickRng = rng.fork();
  const textRng = rng.fork();
  let i = 0;
  const group = (): number => {
    const k = i++;
    if (spec.prefix_mode === 'random') return pickRng.int(0, G - 1);
    if (spec.prefix_mode === 'round-robin') return k % G;
    return Math.floor(k / R) % G;
  };
  const meanSuffix = nominalMean(inputDist(spec)) ?? 0;
  return {
    skipped: 0,
    next(): WorkItem {
      const g = group();
      const total = P + sLen();
      return {
        prompt: maker.extend(textRng, prefixes[g] as string, total, P),
        messages: null,
        prompt_tokens: total,
        max_tokens: outLen(),
        task: null,
        expected: null,
        session: null,
        turn: null,
        prefix_hash_ids: blockIds(groupBlocks[g] as number[], P, total, B, fresh),
        prefix_block_tokens: B,
      };
    },
    describe: () => ({
      dataset: 'prefix',
      tokenizer: maker.tokenizer.name,
      token_counts: maker.tokenizer.exact ? 'exact' : 'estimate',
      groups: G,
      prefix_len: P,
      prefix_mode: spec.prefix_mode,
      ...(spec.prefix_mode === 'repeat' ? { prefix_repeat: R } : {}),
      suffix_len: inputDist(spec),
      output_len: outputDist(spec),
      expected_shared_token_fraction: expectedSharedFraction(P, meanSuffix, G, spec.prefix_mode, R),
      ...(numPrompts ? { num_prompts: numPrompts, expected_shared_token_fraction_run: expectedSharedFraction(P, meanSuffix, G, spec.prefix_mode, R, numPrompts) } : {}),
    }),
    countTokens: (text) => maker.tokenizer.count(text),
    lengthBounds: () => syntheticBounds({ ...spec, session_turns: null, system_prompt_len: 0 }, P),
  };
}
