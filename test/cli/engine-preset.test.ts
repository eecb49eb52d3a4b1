import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

type Sim = { engine: Record<string, unknown> };
const simOf = (r: RunResult): Sim => r.target.simulator as Sim;
const LOAD = ['sim', 'run', '--no-save', '--json', '--concurrency', '4', '--num-prompts', '16', '--random-input-len', '256', '--random-output-len', '64'];

describe('--engine-preset and --num-scheduler-steps (sim run)', () => {
  it('vllm-v0 runs the V0 scheduler: the result states its fields, and multi-step windows stream tokens together', async () => {
    const v1 = await runCli(LOAD);
    const v0 = await runCli([...LOAD, '--engine-preset', 'vllm-v0', '--max-model-len', '4096']);
    const ms = await runCli([...LOAD, '--engine-preset', 'vllm-v0', '--max-model-len', '4096', '--num-scheduler-steps', '8']);
    for (const r of [v1, v0, ms]) expect(r.code, r.stderr).toBe(0);
    const [a, b, c] = [v1, v0, ms].map((r) => simOf(JSON.parse(r.stdout) as RunResult));
    expect(a!.engine).not.toHaveProperty('prefill_first');
    expect(b!.engine).toMatchObject({ prefill_first: true, enable_chunked_prefill: false, max_num_batched_tokens: 4096, step_overhead_ms: 3 });
    expect(c!.engine).toMatchObject({ num_scheduler_steps: 8 });
    // Windows of 8: most tokens reach the client together with the one before (ITL 0), so the
    // median inter-token gap is 0 with windows and a decode step without.
    const itlP50 = (r: { stdout: string }): number => (JSON.parse(r.stdout) as { metrics: { latency: { itl_ms: { p50: number } } } }).metrics.latency.itl_ms.p50;
    expect(itlP50(ms)).toBe(0);
    expect(itlP50(v0)).toBeGreaterThan(0);
  });

  it('an unknown preset is refused with one line (exit 2)', async () => {
    const r = await runCli([...LOAD, '--engine-preset', 'vllm-v9']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/engine_preset|engine-preset/);
  });
});
