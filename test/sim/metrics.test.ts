import { describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { metric, postJson, postSse, scrape, sleep, tokenPrompt } from './helpers.js';

describe('/metrics (Prometheus text, vLLM names)', () => {
  it('exposes vLLM gauges, counters and histograms with types, counting what was served', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 2 } });
    try {
      for (let i = 0; i < 3; i++) await postSse(`${s.url}/v1/completions`, { prompt: 'abcdefgh ijklmnop', max_tokens: 4, ignore_eos: true, stream: true });
      const res = await fetch(`${s.url}/metrics`);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const t = await res.text();
      for (const [name, type] of [
        ['vllm:num_requests_running', 'gauge'], ['vllm:num_requests_waiting', 'gauge'], ['vllm:kv_cache_usage_perc', 'gauge'],
        ['vllm:gpu_cache_usage_perc', 'gauge'], ['vllm:prefix_cache_queries_total', 'counter'], ['vllm:prefix_cache_hits_total', 'counter'],
        ['vllm:num_preemptions_total', 'counter'], ['vllm:prompt_tokens_total', 'counter'], ['vllm:generation_tokens_total', 'counter'],
        ['vllm:request_success_total', 'counter'], ['vllm:time_to_first_token_seconds', 'histogram'], ['vllm:inter_token_latency_seconds', 'histogram'],
        ['vllm:time_per_output_token_seconds', 'histogram'], ['vllm:e2e_request_latency_seconds', 'histogram'], ['vllm:request_queue_time_seconds', 'histogram'],
      ]) expect(t).toContain(`# TYPE ${name} ${type}\n`);
      expect(t).toContain('vllm:num_requests_running{model_name="sim-llama-3.1-8b",engine="0"} 0.0');
      expect(metric(t, 'vllm:prompt_tokens_total')).toBe(3 * 2); // 'abcdefgh' ' ijklmnop': 2 per request
      expect(metric(t, 'vllm:generation_tokens_total')).toBe(12);
      expect(metric(t, 'vllm:request_success_total', 'finished_reason="length"')).toBe(3);
      expect(metric(t, 'vllm:time_to_first_token_seconds_count')).toBe(3);
      expect(metric(t, 'vllm:inter_token_latency_seconds_count')).toBe(9); // 3 gaps per request
      expect(metric(t, 'vllm:time_to_first_token_seconds_bucket', 'le="+Inf"')).toBe(3);
      // TTFT ≈ 5 ms: not in the ≤ 1 ms bucket, all in ≤ 20 ms
      expect(metric(t, 'vllm:time_to_first_token_seconds_bucket', 'le="0.001"')).toBe(0);
      expect(metric(t, 'vllm:time_to_first_token_seconds_bucket', 'le="0.02"')).toBe(3);
      expect(metric(t, 'vllm:time_to_first_token_seconds_sum')).toBeGreaterThan(3 * 0.004);
      expect(metric(t, 'vllm:request_generation_tokens_sum')).toBe(12);
      expect(metric(t, 'vllm:request_prompt_tokens_bucket', 'le="2.0"')).toBe(3);
      expect(metric(t, 'vllm:request_prompt_tokens_bucket', 'le="1.0"')).toBe(0);
      // decode: 3 gaps × 2 ms per request
      expect(metric(t, 'vllm:request_decode_time_seconds_sum')).toBeCloseTo(3 * 0.006, 6);
    } finally {
      await s.close();
    }
  });

  it('stops generating when the client disconnects and counts an abort', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 10 } });
    try {
      const ac = new AbortController();
      const res = await fetch(`${s.url}/v1/completions`, { method: 'POST', body: JSON.stringify({ prompt: 'x', max_tokens: 1000, ignore_eos: true, stream: true }), signal: ac.signal });
      expect(res.status).toBe(200);
      await sleep(60);
      expect(s.stats().running).toBe(1);
      ac.abort();
      // The server learns of the disconnect when it next reads its sockets: wait for that, not a
      // fixed time (a process that ran late fired a 50 ms timer before it read the close).
      for (let i = 0; i < 2000 && s.stats().running > 0; i++) await sleep(5);
      expect(s.stats().running).toBe(0);
      const before = metric(await scrape(s.url), 'vllm:generation_tokens_total');
      await sleep(50);
      const t = await scrape(s.url);
      expect(metric(t, 'vllm:generation_tokens_total')).toBe(before);
      expect(metric(t, 'vllm:request_success_total', 'finished_reason="abort"')).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('a KV cache too small for the load shows waiting requests, full cache and preemptions', async () => {
    // 16 blocks × 16 tokens = 256 tokens of KV; each request grows to 40 + 40 = 80 tokens (5 blocks),
    // so about 3 fit at once: 36 requests take ~12 rounds × 40 decode steps × ~6.5 ms ≈ 3 s, long
    // enough for a scrape to catch the queue however late this process gets to run.
    const s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b', engine: { num_gpu_blocks: 16, layer_overhead_ms: 0 } } });
    try {
      let finished = false;
      const all = Promise.all(Array.from({ length: 36 }, (_, i) => postJson(`${s.url}/v1/completions`, { prompt: tokenPrompt(40, i), max_tokens: 40, ignore_eos: true })));
      const reqs = all.finally(() => (finished = true));
      reqs.catch(() => {}); // awaited below; failures are reported there
      let maxWaiting = 0;
      let maxUsage = 0;
      while (!finished && (maxWaiting === 0 || maxUsage <= 0.5)) {
        await sleep(20);
        const during = await scrape(s.url);
        maxWaiting = Math.max(maxWaiting, metric(during, 'vllm:num_requests_waiting'));
        maxUsage = Math.max(maxUsage, metric(during, 'vllm:kv_cache_usage_perc'));
      }
      const done = await reqs;
      expect(maxWaiting).toBeGreaterThan(0);
      expect(maxUsage).toBeGreaterThan(0.5);
      expect(done.every((r) => r.status === 200)).toBe(true);
      const after = await scrape(s.url);
      expect(metric(after, 'vllm:num_preemptions_total')).toBeGreaterThan(0);
      expect(metric(after, 'vllm:request_queue_time_seconds_sum')).toBeGreaterThan(0);
      expect(metric(after, 'vllm:num_requests_running')).toBe(0);
      expect(metric(after, 'vllm:kv_cache_usage_perc')).toBe(0);
      expect(after).toContain('num_gpu_blocks="16"');
    } finally {
      await s.close();
    }
  });

  it('shared prompt prefixes raise the prefix-cache hit rate and lower TTFT', async () => {
    const timing = { kind: 'engine' as const, hardware: 'h100', model: 'llama-3.1-8b' };
    const run = async (shared: boolean): Promise<{ hitRate: number; ttft: number }> => {
      const s = await startSimServer({ timing, collectGroundTruth: true });
      try {
        let ttftSum = 0;
        for (let i = 0; i < 4; i++) {
          // 8,000 chars ≈ 2,000 tokens: a long system prompt, shared or unique, then a short question
          const system = (shared ? 'S' : String.fromCharCode(65 + i)).repeat(8000);
          await postSse(`${s.url}/v1/chat/completions`, { messages: [{ role: 'system', content: system }, { role: 'user', content: `question ${i}` }], max_tokens: 2, ignore_eos: true, stream: true });
          // server-side TTFT (ground truth), free of client noise
          const g = s.groundTruth[i]!;
          if (i > 0) ttftSum += g.token_ms[0]! - g.arrival_ms;
        }
        const t = await scrape(s.url);
        return { hitRate: metric(t, 'vllm:prefix_cache_hits_total') / metric(t, 'vllm:prefix_cache_queries_total'), ttft: ttftSum / 3 };
      } finally {
        await s.close();
      }
    };
    const distinct = await run(false);
    const shared = await run(true);
    expect(distinct.hitRate).toBe(0);
    expect(shared.hitRate).toBeGreaterThan(0.7); // 3 of 4 requests find ~1,990 of ~2,010 tokens
    expect(shared.ttft).toBeLessThan(distinct.ttft * 0.6);
  });
});

describe('/metrics in the llama.cpp dialect', () => {
  it("uses llama-server's names, without labels", async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 10, perTokenMs: 5 }, dialect: 'llamacpp' });
    try {
      await postSse(`${s.url}/v1/completions`, { prompt: 'abcdefgh', max_tokens: 5, ignore_eos: true, stream: true });
      const t = await scrape(s.url);
      expect(t).toContain('# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total 1.0\n');
      expect(t).toContain('llamacpp:tokens_predicted_total 5.0\n');
      expect(t).toContain('llamacpp:requests_processing 0.0\n');
      expect(t).not.toContain('vllm:');
      // 4 gaps of 5 ms → ≈ 200 tokens/s of generation; prefill 2 tokens in ≈ 10 ms
      const predicted = metric(t, 'llamacpp:predicted_tokens_seconds');
      expect(predicted).toBeGreaterThan(100);
      expect(predicted).toBeLessThanOrEqual(200.01);
      expect(metric(t, 'llamacpp:prompt_seconds_total')).toBeGreaterThan(0.009);
    } finally {
      await s.close();
    }
  });
});
