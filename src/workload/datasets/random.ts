/**
 * vLLM's `random` dataset: prompts of random words (token-exact with a tokenizer, estimated
 * without), an optional prefix shared by every request, output length requested via max_tokens.
 * Input length ~ input_len distribution, else uniform on [⌊X(1−r)⌋, ⌈X(1+r)⌉] with
 * X = random_input_len, r = random_range_ratio; the same for the output with random_output_len.
 * The shared prefix (random_prefix_len tokens) comes before the sampled input length:
 * prompt tokens = random_prefix_len + sampled input length, as in vLLM.
 */
import { distMax, lengthSampler, nominalMean, vllmRange } from '../lengths.js';
import type { Rng } from '../../util/rng.js';
import { createRng } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { TextMaker } from '../synthetic.js';
import type { LengthBounds, WorkItem, Workload } from '../types.js';
import { describeSessions, sessionWorkload, syntheticSessions } from '../sessions.js';
import { blockIds } from './blocks.js';

export function inputDist(spec: SubWorkloadSpec) {
  return spec.input_len ?? vllmRange(spec.random_input_len, spec.random_range_ratio);
}

export function outputDist(spec: SubWorkloadSpec) {
  return spec.output_len ?? vllmRange(spec.random_output_len, spec.random_range_ratio);
}

/** max_tokens from the output sampler: at least 1 (a server rejects max_tokens 0). */
export function outputSampler(spec: SubWorkloadSpec, rng: Rng, datasetLengths?: readonly number[]): () => number {
  const s = lengthSampler(outputDist(spec), rng, datasetLengths);
  return () => Math.max(1, s());
}

/**
 * Longest prompt and output of the random and prefix datasets: shared prefix + system prompt +
 * the input's maximum; with sessions the last turn carries every earlier turn and reply too.
 */
export function syntheticBounds(spec: SubWorkloadSpec, prefixTokens: number): LengthBounds {
  const input = distMax(inputDist(spec));
  const output = distMax(outputDist(spec));
  if (input === null) return { prompt: null, output };
  const base = prefixTokens + spec.system_prompt_len;
  if (!spec.session_turns) return { prompt: base + input, output };
  const turns = distMax(spec.session_turns);
  if (turns === null || output === null) return { prompt: null, output };
  const t = Math.max(1, turns);
  return { prompt: base + t * input + (t - 1) * output, output };
}

export function randomWorkload(spec: SubWorkloadSpec, seed: number, maker: TextMaker, kind: 'completions' | 'chat'): Workload {
  const prefixLen = spec.random_prefix_len;
  const prefix = maker.text(createRng(`${seed}:random:prefix`), prefixLen);
  const system = maker.text(createRng(`${seed}:random:system`), spec.system_prompt_len);
  const rng = createRng(`${seed}:random`);
  const inLen = lengthSampler(inputDist(spec), rng.fork());
  const outLen = outputSampler(spec, rng.fork());
  const textRng = rng.fork();
  const meanIn = nominalMean(inputDist(spec)) ?? 0;
  const describe = (): Record<string, unknown> => ({
    dataset: 'random',
    tokenizer: maker.tokenizer.name,
    token_counts: maker.tokenizer.exact ? 'exact' : 'estimate',
    input_len: inputDist(spec),
    output_len: outputDist(spec),
    prefix_len: prefixLen,
    system_prompt_len: spec.system_prompt_len,
    expected_shared_token_fraction: prefixLen + meanIn > 0 ? prefixLen / (prefixLen + meanIn) : 0,
    ...(spec.session_turns ? describeSessions(spec) : {}),
  });
  const countTokens = (text: string): number => maker.tokenizer.count(text);
  const lengthBounds = (): LengthBounds => syntheticBounds(spec, prefixLen);
  if (spec.session_turns) {
    const make = syntheticSessions(spec, rng.fork(), maker, kind, { input: inLen, output: outLen }, system);
    return { ...sessionWorkload(make, { skipped: 0, describe, countTokens }), lengthBounds };
  }
  const sys = spec.system_prompt_len;
  // The shared prefix as one group's blocks (ids 0…⌊P/B⌋−1), the rest fresh ids.
  const B = spec.prefix_block_size;
  const shared = Array.from({ length: Math.floor(prefixLen / B) }, (_, k) => k);
  let fresh = shared.length;
  return {
    skipped: 0,
    next(): WorkItem {
      const total = prefixLen + inLen();
      const user = prefixLen > 0 ? maker.extend(textRng, prefix, total, prefixLen) : maker.text(textRng, total);
      // A system prompt: its own message for chat; before the text (words, so still exact) for completions.
      const prompt = sys > 0 && kind === 'completions' ? `${system} ${user}`.trim() : user;
      return {
        prompt,
        messages: sys > 0 && kind === 'chat' ? [{ role: 'system', content: system }, { role: 'user', content: user }] : null,
        prompt_tokens: sys + total,
        max_tokens: outLen(),
        task: null,
        expected: null,
        session: null,
        turn: null,
        ...(prefixLen >= B ? { prefix_hash_ids: blockIds(shared, prefixLen, total, B, () => fresh++), prefix_block_tokens: B } : {}),
      };
    },
    describe,
    countTokens,
    lengthBounds,
  };
}
