/**
 * Round-4 held-out rows (issue 27): published measurements at high tensor parallelism, large
 * batches, long contexts and saturation, from two sources the simulator was never fitted to,
 * chosen by setup alone and committed before any parameter was changed (docs/simulator.md
 * §Fidelity). Every number is copied from the source named.
 *
 * Choice rule, TensorRT-LLM: every H100 and H200 cell of the "Throughput Measurements" tables of
 * TensorRT-LLM's perf-overview for the three dense models the simulator has shapes for (Llama-3.1-8B
 * TP1, Llama-3.3-70B H200 TP1 / H100 TP2, Llama-3.1-405B TP8; FP8 ModelOpt checkpoints), at every
 * ISL/OSL pair: 60 throughput figures. GPUStack: every vLLM, SGLang and TensorRT-LLM run of the
 * Qwen3-14B H100 throughput study that is a default server (the engine choice on ShareGPT, the
 * vLLM baseline and the SGLang FP8 configuration on its four random datasets): 36 figures.
 */

export interface TrtllmThroughputCell {
  id: string;
  hardware: 'h100' | 'h200';
  gpus: number;
  model: 'llama-3.1-8b' | 'llama-3.3-70b' | 'llama-3.1-405b';
  isl: number;
  osl: number;
  /** The page's $num_requests for this ISL/OSL. */
  requests: number;
  /** Total Output Throughput (tokens/s), trtllm-bench throughput, requests at an infinite rate. */
  output_throughput: number;
}

/** perf-overview's $num_requests per ISL/OSL pair. */
const TRT_REQUESTS: Record<string, number> = {
  '128/128': 30000, '128/2048': 3000, '128/4096': 1500, '500/2000': 3000, '1000/1000': 3000, '1000/2000': 1500,
  '2048/128': 3000, '2048/2048': 1500, '5000/500': 1500, '20000/2000': 1000,
};
const PAIRS = ['128/128', '128/2048', '128/4096', '500/2000', '1000/1000', '1000/2000', '2048/128', '2048/2048', '5000/500', '20000/2000'];

/** Columns of the page's tables: [model, hardware, tp, throughputs in PAIRS order]. */
const TRT_COLUMNS: [TrtllmThroughputCell['model'], 'h100' | 'h200', number, number[]][] = [
  ['llama-3.1-8b', 'h200', 1, [27911, 26221, 18027, 20770, 17744, 16828, 3538, 12194, 3902, 1804]],
  ['llama-3.1-8b', 'h100', 1, [28312, 22714, 14325, 17660, 15220, 13899, 3450, 9305, 3459, 1351]],
  ['llama-3.3-70b', 'h200', 1, [3803, 4336, 2872, 3666, 2909, 2994, 442, 2003, 566, 283]],
  ['llama-3.3-70b', 'h100', 2, [6378, 6651, 4199, 5222, 4205, 4146, 762, 3082, 898, 437]],
  ['llama-3.1-405b', 'h200', 8, [3814, 5348, 4741, 4724, 3330, 3722, 456, 2948, 650, 505]],
  ['llama-3.1-405b', 'h100', 8, [3627, 4340, 3116, 3994, 2919, 2895, 453, 2296, 610, 345]],
];

export const TRTLLM_HELD_OUT: TrtllmThroughputCell[] = TRT_COLUMNS.flatMap(([model, hardware, gpus, thr]) =>
  PAIRS.map((pair, i) => {
    const [isl, osl] = pair.split('/').map(Number) as [number, number];
    return { id: `trtllm-${hardware}-${model.replace('llama-', '')}-tp${gpus}-${isl}-${osl}`, hardware, gpus, model, isl, osl, requests: TRT_REQUESTS[pair]!, output_throughput: thr[i]! };
  }),
);

export interface GpustackBurst {
  id: string;
  engine: 'vllm' | 'sglang' | 'tensorrt-llm';
  /** The serving command, as on the page. */
  server: string;
  fp8: boolean;
  dataset: string;
  requests: number;
  /** The benchmark's own totals (replayed as their means, rounded: the page has no per-request lengths). */
  total_input_tokens: number;
  total_output_tokens: number;
  mean_ttft_ms: number;
  mean_tpot_ms: number;
  output_throughput: number;
}

const VLLM = 'vllm serve Qwen/Qwen3-14B';
const SGL = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-14B';
const SGL_FP8 = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-14B-FP8';

/** GPUStack, "Optimizing Qwen3-14B Throughput on NVIDIA H100 GPUs": vllm bench serve, every prompt sent at once. */
export const GPUSTACK_14B_HELD_OUT: GpustackBurst[] = [
  { id: 'gs14-vllm-sharegpt', engine: 'vllm', server: VLLM, fp8: false, dataset: 'ShareGPT', requests: 1000, total_input_tokens: 217393, total_output_tokens: 201648, mean_ttft_ms: 22141.21, mean_tpot_ms: 226.03, output_throughput: 3173.92 },
  { id: 'gs14-sglang-sharegpt', engine: 'sglang', server: SGL, fp8: false, dataset: 'ShareGPT', requests: 1000, total_input_tokens: 217393, total_output_tokens: 201628, mean_ttft_ms: 9230.85, mean_tpot_ms: 235.33, output_throughput: 4043.89 },
  { id: 'gs14-trtllm-sharegpt', engine: 'tensorrt-llm', server: 'trtllm-serve Qwen/Qwen3-14B', fp8: false, dataset: 'ShareGPT', requests: 1000, total_input_tokens: 217393, total_output_tokens: 201612, mean_ttft_ms: 10230.91, mean_tpot_ms: 161.58, output_throughput: 4000.99 },
  { id: 'gs14-vllm-32k', engine: 'vllm', server: VLLM, fp8: false, dataset: 'random 32000 in / 100 out', requests: 100, total_input_tokens: 3200000, total_output_tokens: 9855, mean_ttft_ms: 191024.43, mean_tpot_ms: 277.44, output_throughput: 25.48 },
  { id: 'gs14-vllm-4k', engine: 'vllm', server: VLLM, fp8: false, dataset: 'random 4000 in / 200 out', requests: 500, total_input_tokens: 1997942, total_output_tokens: 99803, mean_ttft_ms: 112716.92, mean_tpot_ms: 132.45, output_throughput: 438.56 },
  { id: 'gs14-vllm-2k', engine: 'vllm', server: VLLM, fp8: false, dataset: 'random 2000 in / 100 out', requests: 500, total_input_tokens: 998175, total_output_tokens: 50000, mean_ttft_ms: 50716.13, mean_tpot_ms: 206.51, output_throughput: 505.51 },
  { id: 'gs14-vllm-128', engine: 'vllm', server: VLLM, fp8: false, dataset: 'random 128 in / 4 out', requests: 1000, total_input_tokens: 127698, total_output_tokens: 4000, mean_ttft_ms: 18282.75, mean_tpot_ms: 525.31, output_throughput: 176.06 },
  { id: 'gs14-sglang-fp8-sharegpt', engine: 'sglang', server: SGL_FP8, fp8: true, dataset: 'ShareGPT', requests: 1000, total_input_tokens: 217393, total_output_tokens: 201833, mean_ttft_ms: 7320.6, mean_tpot_ms: 251.67, output_throughput: 5019.64 },
  { id: 'gs14-sglang-fp8-32k', engine: 'sglang', server: SGL_FP8, fp8: true, dataset: 'random 32000 in / 100 out', requests: 100, total_input_tokens: 3200000, total_output_tokens: 9964, mean_ttft_ms: 158068.68, mean_tpot_ms: 215.93, output_throughput: 31.09 },
  { id: 'gs14-sglang-fp8-4k', engine: 'sglang', server: SGL_FP8, fp8: true, dataset: 'random 4000 in / 200 out', requests: 500, total_input_tokens: 1997942, total_output_tokens: 99814, mean_ttft_ms: 82073.47, mean_tpot_ms: 84.93, output_throughput: 583.23 },
  { id: 'gs14-sglang-fp8-2k', engine: 'sglang', server: SGL_FP8, fp8: true, dataset: 'random 2000 in / 100 out', requests: 500, total_input_tokens: 998175, total_output_tokens: 50000, mean_ttft_ms: 33245.08, mean_tpot_ms: 143.22, output_throughput: 704.28 },
  { id: 'gs14-sglang-fp8-128', engine: 'sglang', server: SGL_FP8, fp8: true, dataset: 'random 128 in / 4 out', requests: 1000, total_input_tokens: 127698, total_output_tokens: 4000, mean_ttft_ms: 4489.43, mean_tpot_ms: 927.88, output_throughput: 512.83 },
];
