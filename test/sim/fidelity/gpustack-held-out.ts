/**
 * Held-out rows from GPUStack's performance lab, "Optimizing Qwen3-8B Latency on NVIDIA H100 GPUs"
 * (docs/performance-lab/qwen3-8b/h100-latency.md in github.com/gpustack/gpustack): one H100 SXM,
 * Qwen/Qwen3-8B, `vllm bench serve --backend openai-chat --dataset-name sharegpt --num-prompts 100
 * --max-concurrency N`. Chosen by setup alone before any was simulated (docs/simulator.md
 * §Fidelity): each engine's default server at concurrency 4 (vLLM v0.11.0, SGLang v0.5.3.post3,
 * TensorRT-LLM v1.2.0rc1), the vLLM default at 1, 2 and 8, and SGLang with the FP8 checkpoint;
 * left out: speculative decoding (not modelled) and runs that change only a knob the simulator
 * has no counterpart for (SGLang's CUDA-graph batch limit, attention backend, torch.compile).
 * Every number is copied from the page's benchmark output.
 */

export interface GpustackRun {
  id: string;
  /** The serving command, as on the page. */
  server: string;
  engine: string;
  concurrency: number;
  fp8: boolean;
  mean_ttft_ms: number;
  mean_tpot_ms: number;
  output_throughput: number;
}

/**
 * Every run of the page sends the same 100 ShareGPT prompts: 23,260 input and 22,061 output
 * tokens in all (identical for every engine, so each request generated its reference length).
 * The per-request lengths are not published; the rows replay the means, 232.6 → 233 in and
 * 220.61 → 221 out.
 */
export const GPUSTACK_PROMPTS = { requests: 100, total_input_tokens: 23260, total_output_tokens: 22061, input: 233, output: 221 };

export const GPUSTACK_HELD_OUT: GpustackRun[] = [
  { id: 'gpustack-vllm-c1', server: 'vllm serve Qwen/Qwen3-8B', engine: 'vLLM v0.11.0', concurrency: 1, fp8: false, mean_ttft_ms: 59.01, mean_tpot_ms: 7.28, output_throughput: 132.86 },
  { id: 'gpustack-vllm-c2', server: 'vllm serve Qwen/Qwen3-8B', engine: 'vLLM v0.11.0', concurrency: 2, fp8: false, mean_ttft_ms: 63.78, mean_tpot_ms: 7.37, output_throughput: 257.19 },
  { id: 'gpustack-vllm-c4', server: 'vllm serve Qwen/Qwen3-8B', engine: 'vLLM v0.11.0', concurrency: 4, fp8: false, mean_ttft_ms: 64.0, mean_tpot_ms: 7.38, output_throughput: 496.88 },
  { id: 'gpustack-vllm-c8', server: 'vllm serve Qwen/Qwen3-8B', engine: 'vLLM v0.11.0', concurrency: 8, fp8: false, mean_ttft_ms: 74.57, mean_tpot_ms: 7.71, output_throughput: 917.28 },
  { id: 'gpustack-sglang-c4', server: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B', engine: 'SGLang v0.5.3.post3', concurrency: 4, fp8: false, mean_ttft_ms: 27.7, mean_tpot_ms: 7.19, output_throughput: 525.59 },
  { id: 'gpustack-trtllm-c4', server: 'trtllm-serve Qwen/Qwen3-8B', engine: 'TensorRT-LLM v1.2.0rc1', concurrency: 4, fp8: false, mean_ttft_ms: 51.61, mean_tpot_ms: 7.67, output_throughput: 487.38 },
  { id: 'gpustack-sglang-fp8-c4', server: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8', engine: 'SGLang v0.5.3.post3', concurrency: 4, fp8: true, mean_ttft_ms: 39.66, mean_tpot_ms: 5.65, output_throughput: 657.83 },
];
