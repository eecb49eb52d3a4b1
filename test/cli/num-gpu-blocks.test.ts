import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { RunResult } from '../../src/report/result-json.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, sink } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

type EngineStats = { num_gpu_blocks: number; preemptions: number };
const statsOf = (r: RunResult): EngineStats => (r.target.simulator as { engine_stats: EngineStats }).engine_stats;

describe('--num-gpu-blocks-override (vLLM serve name)', () => {
  it('sim run: the KV cache has exactly that many blocks, and a small pool forces preemption', async () => {
    // No front-end time, so the 16 users reach the engine in the same step and are admitted together.
    const instant = join(tempDir('blocks'), 'instant.yaml');
    writeFileSync(instant, 'kind: infermeter-sim-profile\nversion: 1\nhardware: h100\nmodel: llama-3.1-8b\nengine: {frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0}\n');
    const args = ['sim', 'run', '--no-save', '--json', '--sim-profile', instant, '--concurrency', '16', '--num-prompts', '32', '--random-input-len', '256', '--random-output-len', '64'];
    const free = await runCli(args);
    const tight = await runCli([...args, '--num-gpu-blocks-override', '64']);
    expect(tight.code, tight.stderr).toBe(0);
    const a = statsOf(JSON.parse(free.stdout) as RunResult);
    const b = statsOf(JSON.parse(tight.stdout) as RunResult);
    expect(b.num_gpu_blocks).toBe(64);
    expect(a.num_gpu_blocks).toBeGreaterThan(10_000); // computed from H100 memory
    // 16 requests of up to 320 tokens need 16 × 20 blocks; 64 blocks hold about 3 of them.
    expect(a.preemptions).toBe(0);
    expect(b.preemptions).toBeGreaterThan(0);
  });

  it('sim serve: /metrics reports the overridden block count', async () => {
    const stdout = sink();
    const ac = new AbortController();
    const exit = main(['sim', 'serve', '--port', '0', '--num-gpu-blocks-override', '123'], { stdout, stderr: sink(), env: {}, signal: ac.signal });
    for (let i = 0; i < 1000 && !/http:\/\/[\d.]+:\d+/.test(stdout.text); i++) await new Promise((r) => setTimeout(r, 20));
    const url = /http:\/\/[\d.]+:\d+/.exec(stdout.text)![0];
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/vllm:cache_config_info\{[^}]*num_gpu_blocks="123"[^}]*\} 1/);
    ac.abort();
    expect(await exit).toBe(0);
  });

  it('run (built-in simulator): the engine is started with the override', async () => {
    const out = await runCli(['run', '--no-save', '--json', '--no-metrics', '--num-prompts', '2', '--random-input-len', '16', '--random-output-len', '2', '--num-gpu-blocks-override', '77', '--allow-invalid']);
    expect(out.code, out.stderr).toBe(0);
    const sim = (JSON.parse(out.stdout) as RunResult).target.simulator as { engine: Record<string, unknown> };
    expect(sim.engine.num_gpu_blocks).toBe(77);
  });

  it('rejects a non-positive count with one line', async () => {
    const out = await runCli(['sim', 'run', '--no-save', '--num-gpu-blocks-override', '0']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--num-gpu-blocks-override/);
  });
});
