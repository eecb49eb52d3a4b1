/**
 * Published measurements of real serving engines, copied exactly from their sources, with the
 * setup needed to replay them in the simulator. Nothing here is estimated: a figure a source did
 * not state is not listed. docs/simulator.md §Fidelity renders these into its table.
 */
import { MODELS, type EnginePreset, type ModelProfile } from '../../../src/sim/index.js';
import { GPUSTACK_HELD_OUT, GPUSTACK_PROMPTS, type GpustackRun } from './gpustack-held-out.js';
import { LAMBDA_HELD_OUT, type LambdaFile } from './lambda-held-out.js';
import { GPUSTACK_14B_HELD_OUT, TRTLLM_HELD_OUT, type GpustackBurst, type TrtllmThroughputCell } from './round4-held-out.js';

export type Figure = 'ttft' | 'tpot' | 'itl' | 'throughput';
/** How a source aggregated: the mean over requests, or the median (of requests, or of all gaps for ITL). */
export type Stat = 'mean' | 'p50';

export interface Measured {
  figure: Figure;
  stat: Stat;
  /** ms for ttft/tpot/itl; output tokens/s for throughput. */
  value: number;
}

export interface Source {
  id: string;
  title: string;
  url: string;
  engine: string;
  note: string;
}

interface CaseBase {
  id: string;
  source: string;
  hardware: string;
  gpus: number;
  model: string | ModelProfile;
  precision: string;
  engine: Record<string, number>;
  /** The engine generation measured (src/sim/engine/presets.ts); absent = vllm-v1's defaults. */
  preset?: EnginePreset;
  /**
   * Held out: no free parameter was fitted on this row (docs/simulator.md §Fidelity); its error is
   * reported apart from the fitting rows'.
   */
  held_out?: boolean;
  measured: Measured[];
}

/** Closed loop: `concurrency` users, fixed lengths, `requests` in all. */
export interface ClosedCase extends CaseBase {
  kind: 'closed';
  concurrency: number;
  input: number;
  output: number;
  requests: number;
}

/** Every request sent at t = 0 (request rate inf), with the lengths the source recorded. */
export interface BurstCase extends CaseBase {
  kind: 'burst';
  input_lens: number[];
  output_lens: number[];
}

export type FidelityCase = ClosedCase | BurstCase;

export const SOURCES: Source[] = [
  {
    id: 'nim',
    title: 'NVIDIA NIM LLMs Benchmarking, "Performance" (Llama-3.3-70b-instruct results, NIM 1.8.0)',
    url: 'https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance.md',
    engine: 'NVIDIA NIM 1.8.0 (TensorRT-LLM), measured with AIPerf',
    note: 'TTFT, ITL and throughput are AIPerf averages; throughput = output tokens/s of the whole run.',
  },
  {
    id: 'lambda',
    title: 'Lambda, vllm-benchmark (results/prompt_N/…/{Meta-Llama-3-8B-Instruct,Meta-Llama-3-70B-Instruct,Mixtral-8x7B-Instruct-v0.1}_tpN_len*.json, 2024-09-07)',
    url: 'https://github.com/LambdaLabsML/vllm-benchmark',
    engine: 'vLLM OpenAI server (vllm/vllm-openai image of 2024-09, v0.6-era), benchmark_serving.py, ShareGPT, request rate inf',
    note: 'Per-request input_lens/output_lens are in the result files and replayed exactly. Figures are the files\' mean_ttft_ms (requests with no output count 0, as the script did), mean_tpot_ms (vLLM\'s TPOT: (latency − TTFT) / (output − 1), first token excluded, requests of > 1 token) and output_throughput (output tokens / duration). ITL shows ~10-token bursts (multi-step scheduling), so ITL is not compared.',
  },
  {
    id: 'wmx',
    title: 'ai.wmx.dev, "benchmarks" (serving/raw-vllm concurrency sweep, commit 8e78aaa)',
    url: 'https://ai.wmx.dev/benchmarks',
    engine: 'vLLM v0.23.0 (V1 engine), vllm bench serve, --gpu-memory-utilization 0.6 --max-model-len 8192',
    note: '256-token input / 128-token output, --ignore-eos, closed loop at fixed max-concurrency; p50 figures.',
  },
  {
    id: 'vllm-ci',
    title: 'vLLM performance benchmark (Buildkite vllm/performance-benchmark), "Latency tests": builds 9513 (H200) and 9523 (A100-SXM4-80GB)',
    url: 'https://buildkite.com/vllm/performance-benchmark/builds/9513',
    engine: 'vLLM V0 engine (2024), offline LLM class via benchmark_latency.py: no HTTP server, CUDA graphs on',
    note: 'A batch of 8 prompts of 32 tokens, 128 output tokens each (ignore EOS), mean end-to-end latency of the batch; shown here as output throughput = 8 × 128 tokens / latency. Build 9523 is https://buildkite.com/vllm/performance-benchmark/builds/9523.',
  },
  {
    id: 'gpustack',
    title: 'GPUStack performance lab, "Optimizing Qwen3-8B Latency on NVIDIA H100 GPUs" (docs/performance-lab/qwen3-8b/h100-latency.md)',
    url: 'https://github.com/gpustack/gpustack/blob/main/docs/performance-lab/qwen3-8b/h100-latency.md',
    engine: 'vLLM v0.11.0 (V1), SGLang v0.5.3.post3, TensorRT-LLM v1.2.0rc1, default servers; vllm bench serve --backend openai-chat, ShareGPT, 100 prompts, --max-concurrency N',
    note: 'Figures are vllm bench serve\'s Mean TTFT, Mean TPOT (first token excluded) and Output token throughput. Per-request ShareGPT lengths are not published: replayed as 100 requests of the mean lengths (233 in / 221 out, from 23,260 / 22,061 tokens). SGLang and TensorRT-LLM rows run with the default vllm-v1 scheduler and front end.',
  },
  {
    id: 'trtllm-perf',
    title: 'TensorRT-LLM, "Overview" of performance (docs/source/performance/perf-overview.md, Throughput Measurements: Llama 3.1 8B, Llama 3.3 70B, Llama 3.1 405B)',
    url: 'https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/performance/perf-overview.md',
    engine: 'TensorRT-LLM (PyTorch backend, v0.19+), trtllm-bench throughput: an offline client feeding requests at an infinite rate; CUDA graphs with padding up to batch 8192',
    note: 'Total Output Throughput (tokens/s) at fixed ISL/OSL (synthetic token-norm-dist, stdev 0), nvidia/*-FP8 ModelOpt checkpoints (fp8 weights and fp8 KV cache). The page does not state max batch size or token budget (trtllm-bench chooses them); replayed with TensorRT-LLM\'s defaults and the page\'s request count, capped (run-case.ts). No front end (offline).',
  },
  {
    id: 'gpustack-14b',
    title: 'GPUStack performance lab, "Optimizing Qwen3-14B Throughput on NVIDIA H100 GPUs" (docs/performance-lab/qwen3-14b/h100.md)',
    url: 'https://github.com/gpustack/gpustack/blob/main/docs/performance-lab/qwen3-14b/h100.md',
    engine: 'vLLM v0.11.0 (V1), SGLang v0.5.5.post1, TensorRT-LLM v1.2.0rc1, default servers, 1 × H100 SXM; vllm bench serve --backend openai-chat, every prompt at once (no request rate)',
    note: 'Mean TTFT, Mean TPOT (first token excluded) and Output token throughput from the printed benchmark results. Per-request lengths are not published: replayed as the totals\' means (ShareGPT 217 in / 202 out; random datasets their means).',
  },
];

const m = (id: string): ModelProfile => MODELS.find((x) => x.id === id) as ModelProfile;
/** Llama-3.3-70B has Llama-3.1-70B's shapes; the NIM profile runs fp8 weights and (see docs) fp8 KV. */
/**
 * FP8 checkpoints as they are stored: fp8 linear layers, embeddings and lm_head kept in bf16
 * (2 × vocab × hidden, untied), attention math in bf16. ModelOpt checkpoints (NVIDIA's, NIM's)
 * carry static activation scales and an fp8 KV cache; block-quantized ones (Qwen's -FP8) quantize
 * activations at run time (dynamic scales) and keep a bf16 KV cache.
 */
const fp8Of = (base: ModelProfile, id: string, name: string, modelopt: boolean): ModelProfile => ({
  ...base, id, name, weight_bytes_per_param: 1, unquantized_params: 2 * base.vocab * base.hidden, activation_bytes: 1, attention_bytes: 2,
  ...(modelopt ? { kv_bytes_per_elem: 1 } : { dynamic_activation_quant: true }),
});
const llama70bFp8: ModelProfile = fp8Of(m('llama-3.1-70b'), 'llama-3.3-70b-fp8', 'Llama-3.3-70B (fp8)', true);

const nim = (id: string, c: number, input: number, output: number, ttft: number, itl: number, thr: number, heldOut = false): ClosedCase => ({
  ...(heldOut ? { held_out: true } : {}),
  id, kind: 'closed', source: 'nim', hardware: 'h100', gpus: 2, model: llama70bFp8, precision: 'fp8 weights + fp8 KV', engine: { tensor_parallel: 2 }, preset: 'tensorrt-llm',
  concurrency: c, input, output, requests: Math.max(5 * c, 25),
  measured: [{ figure: 'ttft', stat: 'mean', value: ttft }, { figure: 'itl', stat: 'mean', value: itl }, { figure: 'throughput', stat: 'mean', value: thr }],
});

/** Qwen3-8B-FP8: fp8 weights (block-quantized checkpoint), KV cache in bf16 (SGLang's default). */
const qwen3_8bFp8: ModelProfile = fp8Of(m('qwen3-8b'), 'qwen3-8b-fp8', 'Qwen3-8B (fp8)', false);
/** The engine preset a measured server is replayed with. */
const presetOf = (engine: string): EnginePreset => (/sglang/i.test(engine) ? 'sglang' : /tensorrt/i.test(engine) ? 'tensorrt-llm' : 'vllm-v1');

const gpustack = (r: GpustackRun): ClosedCase => ({
  id: r.id, kind: 'closed', source: 'gpustack', hardware: 'h100', gpus: 1, model: r.fp8 ? qwen3_8bFp8 : 'qwen3-8b', precision: r.fp8 ? 'fp8 weights, bf16 KV' : 'bf16',
  engine: {}, preset: presetOf(r.engine), concurrency: r.concurrency, input: GPUSTACK_PROMPTS.input, output: GPUSTACK_PROMPTS.output, requests: GPUSTACK_PROMPTS.requests, held_out: true,
  measured: [{ figure: 'ttft', stat: 'mean', value: r.mean_ttft_ms }, { figure: 'tpot', stat: 'mean', value: r.mean_tpot_ms }, { figure: 'throughput', stat: 'mean', value: r.output_throughput }],
});

const wmx = (c: number, ttft: number, itl: number, thr: number): ClosedCase => ({
  id: `wmx-l4-c${c}`, kind: 'closed', source: 'wmx', hardware: 'l4', gpus: 1, model: 'qwen2.5-0.5b', precision: 'bf16',
  engine: { gpu_memory_utilization: 0.6, max_model_len: 8192 }, concurrency: c, input: 256, output: 128, requests: Math.max(21 * c, 100),
  measured: [{ figure: 'ttft', stat: 'p50', value: ttft }, { figure: 'itl', stat: 'p50', value: itl }, { figure: 'throughput', stat: 'mean', value: thr }],
});

// ShareGPT sample of benchmark_serving.py (seed 0): the first 320 prompts, identical in every Lambda run.
const SHAREGPT_IN_320 = [13, 25, 27, 10, 329, 29, 399, 328, 4, 205, 16, 372, 403, 9, 12, 770, 227, 8, 14, 390, 659, 59, 76, 744, 619, 279, 344, 9, 10, 45, 11, 4, 80, 768, 317, 40, 619, 8, 298, 16, 17, 696, 575, 11, 7, 281, 12, 147, 481, 770, 336, 6, 331, 9, 45, 222, 802, 481, 93, 641, 22, 15, 16, 77, 32, 689, 178, 9, 628, 480, 42, 336, 24, 515, 761, 112, 113, 348, 82, 467, 245, 11, 24, 343, 13, 387, 258, 32, 28, 225, 248, 35, 133, 98, 27, 23, 58, 363, 203, 140, 140, 230, 310, 521, 768, 317, 298, 336, 491, 19, 10, 59, 48, 20, 20, 54, 107, 53, 72, 18, 10, 768, 7, 933, 239, 277, 26, 35, 462, 386, 25, 23, 17, 20, 44, 661, 631, 349, 53, 71, 37, 10, 21, 37, 496, 8, 9, 353, 10, 595, 5, 49, 286, 305, 56, 43, 52, 310, 35, 7, 7, 238, 10, 143, 660, 191, 72, 39, 258, 312, 49, 9, 15, 561, 76, 561, 501, 8, 66, 15, 303, 19, 455, 27, 143, 688, 9, 31, 361, 21, 117, 8, 12, 775, 338, 176, 349, 166, 419, 401, 307, 169, 647, 21, 9, 34, 12, 37, 45, 154, 8, 10, 18, 253, 486, 611, 96, 19, 62, 529, 15, 30, 10, 445, 680, 762, 441, 77, 12, 276, 178, 22, 159, 95, 366, 4, 7, 770, 8, 45, 480, 90, 32, 329, 768, 72, 86, 53, 83, 419, 44, 14, 56, 28, 707, 235, 27, 668, 17, 427, 44, 370, 8, 674, 455, 185, 68, 19, 132, 304, 9, 34, 39, 54, 768, 661, 404, 240, 25, 95, 60, 24, 12, 85, 66, 62, 462, 22, 241, 25, 32, 13, 175, 31, 342, 43, 339, 144, 233, 16, 10, 11, 269, 587, 8, 233, 10, 48, 9, 335, 22, 61, 29, 692, 7, 332, 512, 13, 128, 24];

const H100_320_OUT = [120, 613, 233, 194, 101, 741, 9, 3, 6, 31, 392, 84, 396, 45, 291, 9, 173, 277, 334, 37, 587, 372, 36, 135, 26, 45, 450, 118, 226, 4, 5, 146, 59, 11, 567, 192, 476, 130, 13, 223, 188, 16, 35, 276, 202, 492, 239, 129, 26, 79, 17, 204, 11, 207, 78, 340, 17, 9, 123, 6, 559, 5, 316, 26, 417, 206, 151, 42, 25, 18, 159, 0, 25, 267, 19, 12, 768, 67, 628, 11, 218, 296, 382, 49, 125, 0, 26, 237, 350, 13, 490, 408, 58, 29, 512, 413, 526, 16, 416, 434, 451, 17, 573, 0, 7, 8, 11, 22, 0, 249, 281, 392, 611, 572, 23, 256, 31, 39, 300, 355, 340, 9, 172, 458, 147, 240, 154, 768, 0, 141, 42, 26, 780, 334, 125, 4, 4, 721, 63, 24, 331, 482, 110, 216, 184, 99, 285, 22, 355, 40, 150, 46, 0, 0, 574, 572, 214, 0, 419, 163, 162, 77, 482, 170, 510, 53, 16, 384, 57, 9, 170, 356, 173, 19, 390, 339, 77, 17, 520, 8, 8, 198, 510, 478, 304, 398, 16, 475, 91, 54, 509, 608, 36, 425, 15, 25, 12, 363, 0, 0, 44, 43, 267, 474, 334, 31, 261, 402, 346, 176, 22, 22, 159, 203, 8, 16, 16, 216, 86, 0, 234, 258, 247, 23, 47, 16, 447, 221, 702, 0, 44, 142, 740, 18, 76, 299, 250, 24, 300, 178, 5, 373, 25, 23, 76, 322, 87, 389, 21, 7, 527, 485, 339, 394, 11, 27, 254, 313, 392, 111, 365, 0, 79, 11, 275, 22, 99, 373, 38, 0, 657, 283, 503, 250, 16, 407, 0, 7, 261, 322, 322, 91, 56, 365, 342, 316, 25, 441, 646, 241, 222, 4, 27, 290, 7, 21, 336, 16, 360, 199, 381, 297, 18, 338, 301, 189, 373, 478, 394, 23, 230, 455, 283, 0, 201, 0, 20, 308, 30, 295];

const A100_320_OUT = [120, 547, 233, 194, 101, 741, 9, 3, 6, 38, 392, 84, 396, 45, 291, 9, 173, 277, 334, 37, 587, 372, 36, 135, 26, 45, 450, 118, 226, 4, 5, 146, 59, 11, 567, 192, 447, 130, 13, 223, 188, 16, 35, 276, 202, 492, 239, 129, 26, 79, 17, 204, 11, 207, 78, 340, 21, 9, 123, 6, 559, 5, 316, 26, 417, 206, 151, 42, 25, 18, 159, 0, 25, 267, 19, 12, 768, 67, 628, 11, 218, 296, 371, 49, 125, 0, 26, 237, 350, 13, 490, 408, 58, 29, 512, 413, 526, 16, 416, 434, 451, 17, 573, 0, 7, 8, 11, 22, 0, 249, 281, 392, 611, 572, 23, 256, 31, 39, 300, 355, 340, 9, 172, 458, 78, 20, 154, 768, 0, 141, 42, 26, 780, 334, 125, 4, 4, 721, 63, 24, 331, 481, 110, 216, 184, 99, 285, 22, 355, 40, 150, 46, 0, 0, 574, 561, 214, 0, 419, 163, 162, 77, 482, 170, 510, 53, 16, 384, 57, 9, 170, 351, 173, 19, 390, 339, 552, 17, 520, 8, 8, 198, 510, 478, 304, 398, 16, 475, 91, 54, 509, 608, 36, 425, 15, 25, 12, 363, 0, 0, 44, 43, 267, 437, 334, 31, 261, 402, 346, 176, 22, 22, 159, 203, 8, 16, 16, 216, 86, 0, 234, 258, 247, 23, 47, 16, 447, 221, 702, 0, 44, 142, 740, 18, 76, 299, 250, 24, 300, 178, 5, 373, 25, 23, 76, 322, 87, 389, 21, 7, 527, 485, 339, 394, 11, 27, 254, 313, 392, 111, 365, 0, 79, 11, 275, 22, 99, 373, 38, 0, 657, 283, 503, 250, 16, 407, 0, 7, 261, 393, 321, 91, 56, 365, 343, 316, 25, 444, 646, 241, 222, 4, 27, 290, 7, 21, 336, 16, 360, 199, 313, 297, 18, 338, 301, 189, 373, 478, 394, 23, 230, 455, 283, 0, 201, 0, 20, 308, 30, 295];

const lambda = (id: string, hardware: string, len: number, ins: number[], outs: number[], ttft: number, tpot: number, thr: number, gpus = 1, model = 'llama-3.1-8b', heldOut = false): BurstCase => ({
  id, kind: 'burst', source: 'lambda', hardware, gpus, model, precision: 'bf16', preset: 'vllm-v0',
  engine: { max_num_seqs: 1024, gpu_memory_utilization: 0.95, max_model_len: len, num_scheduler_steps: 10 }, input_lens: ins, output_lens: outs,
  measured: [{ figure: 'ttft', stat: 'mean', value: ttft }, { figure: 'tpot', stat: 'mean', value: tpot }, { figure: 'throughput', stat: 'mean', value: thr }],
  ...(heldOut ? { held_out: true } : {}),
});
const lambdaHeldOut = (f: LambdaFile): BurstCase =>
  lambda(f.id, f.hardware, f.max_model_len, f.input_lens, f.output_lens, f.mean_ttft_ms, f.mean_tpot_ms, f.output_throughput, f.gpus, f.model, true);

/** benchmark_latency.py: 8 prompts at once, offline (the LLM class has no API server, so no front-end cost). */
const ci = (hardware: string, gpus: number, model: string, latencyMs: number, heldOut: boolean): BurstCase => ({
  id: `ci-${hardware}-${model}-tp${gpus}`, kind: 'burst', source: 'vllm-ci', hardware, gpus, model, precision: 'bf16', preset: 'vllm-v0',
  engine: { frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0, frontend_cpu_ms_per_output_token: 0 },
  input_lens: Array<number>(8).fill(32), output_lens: Array<number>(8).fill(128),
  measured: [{ figure: 'throughput', stat: 'mean', value: (8 * 128 * 1000) / latencyMs }],
  ...(heldOut ? { held_out: true } : {}),
});

/** FP8 ModelOpt checkpoints (nvidia/*-FP8). */
const TRT_MODELS: Record<TrtllmThroughputCell['model'], ModelProfile> = {
  'llama-3.1-8b': fp8Of(m('llama-3.1-8b'), 'llama-3.1-8b-fp8', 'Llama-3.1-8B (fp8)', true),
  'llama-3.3-70b': llama70bFp8,
  'llama-3.1-405b': fp8Of(m('llama-3.1-405b'), 'llama-3.1-405b-fp8', 'Llama-3.1-405B (fp8)', true),
};
/** Offline: no API server on the request path. */
const OFFLINE = { frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0, frontend_cpu_ms_per_output_token: 0 };
/** Requests replayed per TensorRT-LLM cell: the page's count, capped so the table runs in seconds (steady state is reached well before). */
export const TRT_REPLAY_CAP = 1000;
const trtllm = (c: TrtllmThroughputCell): BurstCase => {
  const n = Math.min(c.requests, TRT_REPLAY_CAP);
  return {
    id: c.id, kind: 'burst', source: 'trtllm-perf', hardware: c.hardware, gpus: c.gpus, model: TRT_MODELS[c.model], precision: 'fp8 weights + fp8 KV',
    // The page's llm_options capture CUDA graphs up to batch 8192 (padded).
    engine: { ...OFFLINE, max_model_len: c.isl + c.osl, cuda_graph_max_batch: 8192 }, preset: 'tensorrt-llm', held_out: true,
    input_lens: Array<number>(n).fill(c.isl), output_lens: Array<number>(n).fill(c.osl),
    measured: [{ figure: 'throughput', stat: 'mean', value: c.output_throughput }],
  };
};
const qwen3_14bFp8: ModelProfile = fp8Of(m('qwen3-14b'), 'qwen3-14b-fp8', 'Qwen3-14B (fp8)', false);
const gpustack14 = (r: GpustackBurst): BurstCase => {
  const input = Math.round(r.total_input_tokens / r.requests);
  const output = Math.round(r.total_output_tokens / r.requests);
  return {
    id: r.id, kind: 'burst', source: 'gpustack-14b', hardware: 'h100', gpus: 1, model: r.fp8 ? qwen3_14bFp8 : 'qwen3-14b', precision: r.fp8 ? 'fp8 weights, bf16 KV' : 'bf16',
    engine: {}, preset: presetOf(r.engine), held_out: true, input_lens: Array<number>(r.requests).fill(input), output_lens: Array<number>(r.requests).fill(output),
    measured: [{ figure: 'ttft', stat: 'mean', value: r.mean_ttft_ms }, { figure: 'tpot', stat: 'mean', value: r.mean_tpot_ms }, { figure: 'throughput', stat: 'mean', value: r.output_throughput }],
  };
};

export const CASES: FidelityCase[] = [
  // NIM 1.8.0, 2 × H100 80G, fp8, TP2, 5000 input / 500 output tokens.
  nim('nim-70b-5000-c1', 1, 5000, 500, 406.77, 18.58, 51.67),
  nim('nim-70b-5000-c5', 5, 5000, 500, 546.7, 21.83, 218.48),
  nim('nim-70b-5000-c25', 25, 5000, 500, 688.69, 38.75, 623.4),
  nim('nim-70b-5000-c50', 50, 5000, 500, 834.51, 59.73, 814.37),
  nim('nim-70b-5000-c250', 250, 5000, 500, 88605.32, 93.2, 920.12),
  // Same table, concurrency 100, 150 and 200: held out (added after the defaults were set).
  nim('nim-70b-5000-c100', 100, 5000, 500, 7996.25, 92.91, 917.26, true),
  nim('nim-70b-5000-c150', 150, 5000, 500, 34794.22, 92.86, 920.9, true),
  nim('nim-70b-5000-c200', 200, 5000, 500, 61680.22, 93.06, 920.54, true),
  // Same page, 500 input / 2000 output tokens, concurrency 1.
  nim('nim-70b-500-c1', 1, 500, 2000, 47.77, 18.91, 52.85),
  // Lambda, 1 × H100 80GB SXM / 1 × A100 80GB SXM, Meta-Llama-3-8B-Instruct (Llama-3.1-8B's shapes), bf16.
  lambda('lambda-h100-10', 'h100', 2048, SHAREGPT_IN_320.slice(0, 10), [120, 429, 233, 194, 101, 741, 9, 3, 6, 31], 62.426355000934564, 11.105466039313557, 347.8919151936622),
  lambda('lambda-a100-10', 'a100', 2000, SHAREGPT_IN_320.slice(0, 10), [120, 507, 233, 194, 101, 741, 9, 3, 6, 31], 139.22520615160465, 17.953939450032614, 227.03837146571024),
  lambda('lambda-h100-320', 'h100', 2048, SHAREGPT_IN_320, H100_320_OUT, 1628.5096086156955, 45.82996333273322, 6026.612126585249),
  lambda('lambda-a100-320', 'a100', 2000, SHAREGPT_IN_320, A100_320_OUT, 3423.1722580851056, 101.4560316738644, 3107.488463112791),
  // wmx, 1 × L4 (23 GB), Qwen2.5-0.5B-Instruct, bf16.
  wmx(1, 27.0, 5.1, 168),
  wmx(2, 37.8, 5.2, 367),
  wmx(4, 50.1, 5.3, 698),
  wmx(8, 60.9, 5.5, 1312),
  wmx(16, 103.8, 6.0, 2277),
  wmx(32, 135.3, 7.1, 3773),
  // vLLM CI latency tests, A100-SXM4-80GB (build 9523): mean latency 1579.27 / 3990.59 / 3643.84 ms.
  ci('a100', 1, 'llama-3.1-8b', 1579.27, false),
  ci('a100', 4, 'llama-3.1-70b', 3990.59, false),
  ci('a100', 2, 'mixtral-8x7b', 3643.84, false),
  // Same tests on H200 (build 9513): 834.059 / 2075.08 / 1921.1 ms. Held out.
  ci('h200', 1, 'llama-3.1-8b', 834.059, true),
  ci('h200', 4, 'llama-3.1-70b', 2075.08, true),
  ci('h200', 2, 'mixtral-8x7b', 1921.1, true),
  // Lambda, same campaign as the fitting Lambda rows: 40-prompt bursts of Llama-3-8B, 10 and 40 of
  // Llama-3-70B (TP4) and Mixtral-8x7B (TP2), on H100 and A100. Held out (lambda-held-out.ts).
  ...LAMBDA_HELD_OUT.map(lambdaHeldOut),
  // GPUStack, 1 × H100 SXM, Qwen3-8B: vLLM v0.11.0 at concurrency 1–8, SGLang and TensorRT-LLM at 4. Held out (gpustack-held-out.ts).
  ...GPUSTACK_HELD_OUT.map(gpustack),
  // Round 4 (issue 27), held out, committed before any parameter changed (round4-held-out.ts):
  // TensorRT-LLM's offline throughput tables (H100/H200, TP1–8, 8B–405B FP8, ISL up to 20,000) and
  // GPUStack's Qwen3-14B saturation runs (vLLM, SGLang, TensorRT-LLM; 100–1,000 prompts at once).
  ...TRTLLM_HELD_OUT.map(trtllm),
  ...GPUSTACK_14B_HELD_OUT.map(gpustack14),
];

