import { describe, expect, it } from 'vitest';
import type { VirtualRequest } from '../../src/sim/virtual.js';
import { UserError } from '../../src/errors/user-error.js';
import { runVirtual } from '../../src/sim/virtual.js';

const ttft = (r: { first_token_ms: number | null; sent_ms: number }): number => (r.first_token_ms as number) - r.sent_ms;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function closedLoop(concurrency: number, n: number, prompt = 512, out = 128): ReturnType<typeof runVirtual> {
  const requests: VirtualRequest[] = Array.from({ length: n }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: prompt, max_tokens: out }));
  return runVirtual({ requests, closedLoopConcurrency: concurrency });
}

describe('engine (virtual time)', () => {
  it('emits exactly max_tokens per request with monotone chunk times', () => {
    const { records, stats } = runVirtual({ requests: [{ id: 7, scheduled_ms: 100, prompt_tokens: 200, max_tokens: 10 }] });
    const r = records[0]!;
    expect(r.output_tokens).toBe(10);
    expect(r.chunk_ms).toHaveLength(10);
    expect(r.first_token_ms).toBe(r.chunk_ms[0]);
    expect(r.end_ms).toBe(r.chunk_ms[9]);
    for (let i = 1; i < 10; i++) expect(r.chunk_ms[i]!).toBeGreaterThan(r.chunk_ms[i - 1]!);
    expect(r).toMatchObject({ id: 7, status: 'ok', token_source: 'usage', prompt_tokens: 200, sent_ms: 100, scheduled_ms: 100 });
    expect(stats.steps).toBe(10); // 1 prefill step (first token) + 9 decode steps
  });

  it('batch-1 decode gap on H100 is ≈ weights / (bandwidth × efficiency) + overhead', () => {
    const r = runVirtual({ requests: [{ id: 0, scheduled_ms: 0, prompt_tokens: 16, max_tokens: 5 }] }).records[0]!;
    const gap = r.chunk_ms[4]! - r.chunk_ms[3]!;
    // 16.06 GB / (3.35 TB/s × 0.8) = 5.99 ms, + a CUDA-graph decode step's overhead
    // 0.4 + 32 × 0.004 + 0.03 = 0.558 ms ≈ 6.55 ms
    expect(gap).toBeGreaterThan(6.45);
    expect(gap).toBeLessThan(6.65);
  });

  it('TTFT grows with prompt length', () => {
    const t = [128, 1024, 4096, 16384].map((p) => ttft(runVirtual({ requests: [{ id: 0, scheduled_ms: 0, prompt_tokens: p, max_tokens: 2 }] }).records[0]!));
    for (let i = 1; i < t.length; i++) expect(t[i]!).toBeGreaterThan(t[i - 1]!);
    // 16k tokens exceed the 8,192-token step budget: chunked over 2+ steps, ≥ 2 × 8k prefill compute
    expect(t[3]!).toBeGreaterThan(2 * 290);
  });

  it('throughput rises then plateaus as concurrency grows, while TTFT climbs', () => {
    const levels = [1, 16, 128, 512, 1024];
    const res = levels.map((c) => {
      const { records, stats } = closedLoop(c, Math.max(3 * c, 48));
      return { c, tput: stats.generation_tokens / (stats.sim_duration_ms / 1000), ttft: mean(records.map(ttft)) };
    });
    expect(res[1]!.tput).toBeGreaterThan(5 * res[0]!.tput);
    expect(res[2]!.tput).toBeGreaterThan(2 * res[1]!.tput);
    // the batch is near its limit at 512 (the KV cache holds ≈ 700 sequences of 640 tokens, below H100's max_num_seqs of 1024): throughput within 15%
    expect(Math.abs(res[4]!.tput - res[3]!.tput) / res[3]!.tput).toBeLessThan(0.15);
    for (let i = 1; i < res.length; i++) expect(res[i]!.ttft).toBeGreaterThan(res[i - 1]!.ttft);
    expect(res[4]!.ttft).toBeGreaterThan(10 * res[1]!.ttft);
  });

  it('shared prefixes raise the prefix-cache hit rate and lower TTFT', () => {
    const mk = (shared: boolean): VirtualRequest[] =>
      Array.from({ length: 40 }, (_, i) => ({
        id: i, scheduled_ms: i * 200, prompt_tokens: 4096, max_tokens: 4,
        // 240 of 256 blocks shared (a long system prompt), or all-distinct prefixes
        prefix_hash_ids: Array.from({ length: 240 }, (_, b) => (shared ? b : i * 1000 + b)),
      }));
    const a = runVirtual({ requests: mk(false) });
    const b = runVirtual({ requests: mk(true) });
    expect(a.stats.prefix_hit_rate).toBe(0);
    expect(b.stats.prefix_hit_rate).toBeGreaterThan(0.9);
    expect(mean(b.records.map(ttft))).toBeLessThan(mean(a.records.map(ttft)) / 3);
  });

  it('a KV cache too small for the load queues requests and preempts', () => {
    const requests: VirtualRequest[] = Array.from({ length: 64 }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: 256, max_tokens: 256 }));
    // 200 blocks × 16 = 3,200 tokens; each request grows to 512 tokens (32 blocks)
    const small = runVirtual({ requests, engine: { num_gpu_blocks: 200 } });
    const big = runVirtual({ requests });
    expect(small.stats.preemptions).toBeGreaterThan(0);
    expect(big.stats.preemptions).toBe(0);
    // fewer sequences fit per step, so requests wait longer for their first token
    expect(small.stats.mean_step_seqs).toBeLessThan(big.stats.mean_step_seqs / 3);
    expect(mean(small.records.map(ttft))).toBeGreaterThan(5 * mean(big.records.map(ttft)));
    expect(small.records.every((r) => r.output_tokens === 256)).toBe(true); // preempted work is recomputed, not lost
    expect(small.stats.sim_duration_ms).toBeGreaterThan(big.stats.sim_duration_ms);
  });

  it('rejects a request longer than the model context or the whole cache', () => {
    const { records, stats } = runVirtual({
      requests: [{ id: 1, scheduled_ms: 0, prompt_tokens: 100, max_tokens: 5000 }, { id: 2, scheduled_ms: 0, prompt_tokens: 10, max_tokens: 5 }],
      engine: { max_model_len: 4096 },
    });
    expect(stats.rejected).toBe(1);
    expect(records.find((r) => r.id === 1)).toMatchObject({ status: 'error', http_status: 400, error_class: 'http_4xx' });
    expect(records.find((r) => r.id === 2)).toMatchObject({ status: 'ok', output_tokens: 5 });
  });

  it('respects max_num_seqs: requests beyond it wait', () => {
    // No front-end time, so all 20 reach the engine together.
    const instant = { frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0 };
    const { stats } = runVirtual({ requests: Array.from({ length: 20 }, (_, i) => ({ id: i, scheduled_ms: 0, prompt_tokens: 32, max_tokens: 8 })), engine: { max_num_seqs: 4, ...instant } });
    expect(stats.mean_step_seqs).toBeLessThanOrEqual(4);
    expect(stats.max_waiting).toBe(20);
  });

  it('says plainly when a model does not fit, and runs it with tensor parallelism', () => {
    const one = { id: 0, scheduled_ms: 0, prompt_tokens: 64, max_tokens: 4 };
    expect(() => runVirtual({ model: 'llama-3.1-70b', requests: [one] })).toThrow(UserError);
    expect(() => runVirtual({ model: 'llama-3.1-70b', requests: [one] })).toThrow(/tensor_parallel/);
    const tp4 = runVirtual({ model: 'llama-3.1-70b', engine: { tensor_parallel: 4 }, requests: [one] });
    const gap = tp4.records[0]!.chunk_ms[3]! - tp4.records[0]!.chunk_ms[2]!;
    // 141.2 GB / (4 × 3.35 TB/s × 0.8) = 13.2 ms + overhead 0.75 ms + all-reduces 80 × 2 × ~20 µs ≈ 17.2 ms
    expect(gap).toBeGreaterThan(16);
    expect(gap).toBeLessThan(19);
  });
});
