/**
 * vLLM's `random` dataset: prompts of random words (token-exact with a tokenizer, estimated
 * without), an optional prefix shared by every request, output length requested via max_tokens.
 * Input length ~ input_len distribution, else uniform on [⌊X(1−r)⌋, ⌈X(1+r)⌉] with
 * X = random_input_len, r = random_range_ratio; the same for the output with random_output_len.
 * The shared prefix (random_prefix_len tokens) comes before the sampled input length:
 * prompt tokens = random_prefix_len + sampled input length, as in vLLM.
 */
import { lengthSampler, nominalMean, vllmRange } from '../lengths.js';
import type { Rng } from '../rng.js';
import { createRng } from '../rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { TextMaker } from '../synthetic.js';
import type { WorkItem, Workload } from '../types.js';

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

export function randomWorkload(spec: SubWorkloadSpec, seed: number, maker: TextMaker): Workload {
  const prefixLen = spec.random_prefix_len;
  const prefix = maker.text(createRng(`${seed}:random:prefix`), prefixLen);
  const rng = createRng(`${seed}:random`);
  const inLen = lengthSampler(inputDist(spec), rng.fork());
  const outLen = outputSampler(spec, rng.fork());
  const textRng = rng.fork();
  const meanIn = nominalMean(inputDist(spec)) ?? 0;
  return {
    skipped: 0,
    next(): WorkItem {
      const total = prefixLen + inLen();
      const prompt = prefixLen > 0 ? maker.extend(textRng, prefix, total) : maker.text(textRng, total);
      return {
        prompt,
        messages: null,
        prompt_tokens: total,
        max_tokens: outLen(),
        task: null,
        expected: null,
        session: null,
        turn: null,
      };
    },
    describe: () => ({
      dataset: 'random',
      tokenizer: maker.tokenizer.name,
      token_counts: maker.tokenizer.exact ? 'exact' : 'estimate',
      input_len: inputDist(spec),
      output_len: outputDist(spec),
      prefix_len: prefixLen,
      expected_shared_prefix_fraction: prefixLen + meanIn > 0 ? prefixLen / (prefixLen + meanIn) : 0,
    }),
    countTokens: (text) => maker.tokenizer.count(text),
  };
}
