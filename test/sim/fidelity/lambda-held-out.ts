/**
 * Held-out rows from Lambda's vllm-benchmark result files (same campaign, server and client as the
 * fitting Lambda rows of cases.ts: 2024-09-07, vLLM OpenAI server started by benchmark.py with
 * --max-num-seqs 1024 --gpu-memory-utilization 0.95, benchmark_serving.py, ShareGPT, request rate
 * inf). Chosen by setup alone before any was simulated (docs/simulator.md §Fidelity): every model
 * the simulator has shapes for at the tensor parallelism the vLLM CI rows use (Llama-3-8B TP1,
 * Llama-3-70B TP4, Mixtral-8x7B TP2), on both GPUs, at 10 prompts (light load) and 40 (moderate),
 * except Llama-3-8B at 10, which is a fitting row. Every number is copied from the file named.
 */

export interface LambdaFile {
  id: string;
  /** results/prompt_N/<gpus>x<GPU>/<file>.json in github.com/LambdaLabsML/vllm-benchmark */
  path: string;
  date: string;
  /** The file's own totals: the lengths below must add up to them (a check on the copy). */
  total_input_tokens: number;
  total_output_tokens: number;
  hardware: 'h100' | 'a100';
  gpus: number;
  model: 'llama-3.1-8b' | 'llama-3.1-70b' | 'mixtral-8x7b';
  max_model_len: number;
  input_lens: number[];
  output_lens: number[];
  mean_ttft_ms: number;
  mean_tpot_ms: number;
  output_throughput: number;
}

/** The Llama-3 tokenizer's first 40 ShareGPT prompts (seed 0): the head of SHAREGPT_IN_320 in cases.ts. */
const LLAMA_IN_40 = [13, 25, 27, 10, 329, 29, 399, 328, 4, 205, 16, 372, 403, 9, 12, 770, 227, 8, 14, 390, 659, 59, 76, 744, 619, 279, 344, 9, 10, 45, 11, 4, 80, 768, 317, 40, 619, 8, 298, 16];
/** The Mixtral tokenizer's first 40 (the same sampler keeps other prompts past the tenth). */
const MIXTRAL_IN_40 = [14, 30, 28, 12, 375, 29, 487, 369, 5, 236, 4, 18, 494, 518, 10, 14, 277, 8, 17, 493, 776, 64, 87, 879, 776, 341, 455, 9, 12, 48, 12, 5, 88, 865, 386, 42, 716, 9, 323, 18];

export const LAMBDA_HELD_OUT: LambdaFile[] = [
  {
    id: 'lambda-h100-40', path: 'results/prompt_40/1xH100-80GB-SXM/Meta-Llama-3-8B-Instruct_tp1_len2048.json', date: '20240907-084047', total_input_tokens: 8595, total_output_tokens: 7692,
    hardware: 'h100', gpus: 1, model: 'llama-3.1-8b', max_model_len: 2048, input_lens: LLAMA_IN_40,
    output_lens: [120, 393, 233, 194, 101, 741, 9, 3, 6, 31, 392, 84, 396, 45, 291, 9, 173, 277, 334, 37, 587, 372, 36, 135, 26, 45, 450, 118, 226, 4, 5, 146, 59, 11, 567, 192, 478, 130, 13, 223],
    mean_ttft_ms: 260.86145632471016, mean_tpot_ms: 14.136773420986879, output_throughput: 1294.0742565388612,
  },
  {
    id: 'lambda-a100-40', path: 'results/prompt_40/1xA100-80GB-SXM/Meta-Llama-3-8B-Instruct_tp1_len2000.json', date: '20240907-085357', total_input_tokens: 8595, total_output_tokens: 7721,
    hardware: 'a100', gpus: 1, model: 'llama-3.1-8b', max_model_len: 2000, input_lens: LLAMA_IN_40,
    output_lens: [120, 415, 233, 194, 101, 741, 9, 3, 6, 38, 392, 84, 396, 45, 291, 9, 173, 277, 334, 37, 587, 372, 36, 135, 26, 45, 450, 118, 226, 4, 5, 146, 59, 11, 567, 192, 478, 130, 13, 223],
    mean_ttft_ms: 534.8745740950108, mean_tpot_ms: 27.503284371054924, output_throughput: 785.7565568974999,
  },
  {
    id: 'lambda-h100-70b-tp4-10', path: 'results/prompt_10/4xH100-80GB-SXM/Meta-Llama-3-70B-Instruct_tp4_len2048.json', date: '20240907-105921', total_input_tokens: 1369, total_output_tokens: 2091,
    hardware: 'h100', gpus: 4, model: 'llama-3.1-70b', max_model_len: 2048, input_lens: LLAMA_IN_40.slice(0, 10),
    output_lens: [120, 661, 233, 194, 101, 741, 0, 0, 6, 35],
    mean_ttft_ms: 112.515764895943, mean_tpot_ms: 20.444790364310695, output_throughput: 159.96966847802105,
  },
  {
    id: 'lambda-a100-70b-tp4-10', path: 'results/prompt_10/4xA100-80GB-SXM/Meta-Llama-3-70B-Instruct_tp4_len2000.json', date: '20240907-125655', total_input_tokens: 1369, total_output_tokens: 2009,
    hardware: 'a100', gpus: 4, model: 'llama-3.1-70b', max_model_len: 2000, input_lens: LLAMA_IN_40.slice(0, 10),
    output_lens: [120, 579, 233, 194, 101, 741, 0, 0, 6, 35],
    mean_ttft_ms: 284.2337813228369, mean_tpot_ms: 34.03173580983559, output_throughput: 93.82179455895334,
  },
  {
    id: 'lambda-h100-70b-tp4-40', path: 'results/prompt_40/4xH100-80GB-SXM/Meta-Llama-3-70B-Instruct_tp4_len2048.json', date: '20240907-123101', total_input_tokens: 8595, total_output_tokens: 6942,
    hardware: 'h100', gpus: 4, model: 'llama-3.1-70b', max_model_len: 2048, input_lens: LLAMA_IN_40,
    output_lens: [120, 723, 233, 194, 101, 741, 0, 0, 6, 35, 392, 30, 396, 45, 291, 9, 173, 277, 334, 0, 587, 372, 14, 89, 0, 0, 450, 118, 226, 4, 5, 146, 45, 11, 0, 192, 230, 130, 0, 223],
    mean_ttft_ms: 486.684497576789, mean_tpot_ms: 28.696129663333167, output_throughput: 486.8437410642051,
  },
  {
    id: 'lambda-a100-70b-tp4-40', path: 'results/prompt_40/4xA100-80GB-SXM/Meta-Llama-3-70B-Instruct_tp4_len2000.json', date: '20240907-144352', total_input_tokens: 8595, total_output_tokens: 6963,
    hardware: 'a100', gpus: 4, model: 'llama-3.1-70b', max_model_len: 2000, input_lens: LLAMA_IN_40,
    output_lens: [120, 744, 233, 194, 101, 741, 0, 0, 6, 35, 392, 30, 396, 45, 291, 9, 173, 277, 334, 0, 587, 372, 14, 89, 0, 0, 450, 118, 226, 4, 5, 146, 45, 11, 0, 192, 230, 130, 0, 223],
    mean_ttft_ms: 1051.8708829768002, mean_tpot_ms: 54.54731312001643, output_throughput: 279.26364323257513,
  },
  {
    id: 'lambda-h100-mixtral-tp2-10', path: 'results/prompt_10/2xH100-80GB-SXM/Mixtral-8x7B-Instruct-v0.1_tp2_len2048.json', date: '20240907-092949', total_input_tokens: 1585, total_output_tokens: 2709,
    hardware: 'h100', gpus: 2, model: 'mixtral-8x7b', max_model_len: 2048, input_lens: MIXTRAL_IN_40.slice(0, 10),
    output_lens: [129, 971, 273, 207, 118, 928, 0, 26, 9, 48],
    mean_ttft_ms: 1661.6309920980711, mean_tpot_ms: 16.51524983196695, output_throughput: 206.48155925618642,
  },
  {
    id: 'lambda-a100-mixtral-tp2-10', path: 'results/prompt_10/2xA100-80GB-SXM/Mixtral-8x7B-Instruct-v0.1_tp2_len2000.json', date: '20240907-102542', total_input_tokens: 1585, total_output_tokens: 2710,
    hardware: 'a100', gpus: 2, model: 'mixtral-8x7b', max_model_len: 2000, input_lens: MIXTRAL_IN_40.slice(0, 10),
    output_lens: [129, 971, 273, 207, 118, 928, 0, 26, 9, 49],
    mean_ttft_ms: 1542.1658385545015, mean_tpot_ms: 25.694244856821218, output_throughput: 145.22221075262033,
  },
  {
    id: 'lambda-h100-mixtral-tp2-40', path: 'results/prompt_40/2xH100-80GB-SXM/Mixtral-8x7B-Instruct-v0.1_tp2_len2048.json', date: '20240907-095208', total_input_tokens: 9349, total_output_tokens: 8700,
    hardware: 'h100', gpus: 2, model: 'mixtral-8x7b', max_model_len: 2048, input_lens: MIXTRAL_IN_40,
    output_lens: [129, 750, 273, 207, 118, 928, 0, 26, 9, 48, 10, 490, 95, 493, 49, 322, 31, 303, 409, 0, 749, 320, 168, 98, 0, 0, 571, 132, 251, 7, 8, 169, 63, 14, 814, 231, 20, 135, 0, 260],
    mean_ttft_ms: 4848.668910201377, mean_tpot_ms: 95.0853263771585, output_throughput: 381.5270701791514,
  },
  {
    id: 'lambda-a100-mixtral-tp2-40', path: 'results/prompt_40/2xA100-80GB-SXM/Mixtral-8x7B-Instruct-v0.1_tp2_len2000.json', date: '20240907-110257', total_input_tokens: 9349, total_output_tokens: 8866,
    hardware: 'a100', gpus: 2, model: 'mixtral-8x7b', max_model_len: 2000, input_lens: MIXTRAL_IN_40,
    output_lens: [129, 971, 273, 207, 118, 928, 0, 26, 9, 49, 10, 485, 95, 493, 49, 344, 31, 303, 409, 0, 749, 338, 168, 99, 0, 0, 571, 132, 244, 7, 8, 169, 63, 14, 814, 231, 20, 135, 0, 175],
    mean_ttft_ms: 3761.7750548757613, mean_tpot_ms: 57.65634492875668, output_throughput: 303.8313686868252,
  },
];
