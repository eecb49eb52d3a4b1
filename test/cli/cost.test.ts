import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { runVirtual } from '../../src/sim/virtual.js';
import { runCli } from '../helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'infermeter-cost-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LOAD = ['--request-rate', '4', '--num-prompts', '60', '--random-input-len', '512', '--random-output-len', '32', '--seed', '1'];

describe('cost figures in sim run, analyze and the console', () => {
  it("the simulator's prefill/decode split: a lone request's prefill time is its TTFT less the front end's, its decode time the rest", () => {
    const one = [{ id: 0, scheduled_ms: 0, prompt_tokens: 512, max_tokens: 4 }];
    // Without front-end time (docs/simulator.md §The front end) the GPU's prefill is the whole TTFT.
    const bare = runVirtual({ requests: one, engine: { frontend_latency_ms: 0, frontend_cpu_ms: 0, frontend_cpu_ms_per_1k_tokens: 0 } });
    const r = bare.records[0]!;
    expect(bare.stats.prefill_ms).toBeCloseTo(r.first_token_ms! - r.sent_ms, 9);
    expect(bare.stats.decode_ms).toBeCloseTo(r.end_ms - r.first_token_ms!, 9);
    // With the defaults TTFT adds 10 ms of latency + 4 ms + 512/1000 × 1 ms of API-server CPU, none of it GPU time.
    const full = runVirtual({ requests: one });
    const f = full.records[0]!;
    expect(f.first_token_ms! - f.sent_ms - full.stats.prefill_ms).toBeCloseTo(14.512, 9);
    expect(full.stats.prefill_ms).toBeCloseTo(bare.stats.prefill_ms, 9);
  });

  it('sim run --gpu-hour-cost with TP 2 prices 2 GPUs; analyze recomputes the same figures from the run directory', async () => {
    const run = await runCli(['sim', 'run', ...LOAD, '--tensor-parallel-size', '2', '--gpu-hour-cost', '2.5', '--goodput', 'ttft:100', '--result-dir', tmp, '--name', 'cost', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const res = JSON.parse(run.stdout) as RunResult;
    const c = res.cost!;
    expect(c.gpus).toBe(2);
    expect(c.gpu_type).toBe('h100');
    expect(c.split.method).toBe('simulator_step_time');
    expect(c.gpu_hours).toBeCloseTo((2 * res.metrics.duration_s) / 3600, 12);
    expect(c.total_cost).toBeCloseTo(c.gpu_hours * 2.5, 12);
    expect(c.per_request).toBeCloseTo(c.total_cost / res.metrics.requests.ok, 12);
    expect(c.good_requests).toBe(res.metrics.goodput!.good);
    expect(c.input.cost + c.output.cost).toBeCloseTo(c.total_cost, 12);
    const runDir = join(tmp, readdirSync(tmp).filter((d) => !d.startsWith('.'))[0]!);
    const again = await runCli(['analyze', runDir, '--json']);
    expect(again.code, again.stderr).toBe(0);
    // Records are saved at µs resolution, so the figures agree to that precision.
    const back = (JSON.parse(again.stdout) as RunResult).cost!;
    expect(back.split).toEqual(c.split);
    expect(back.gpus).toBe(2);
    for (const k of ['total_cost', 'per_request', 'per_good_request'] as const) expect(back[k]! / c[k]!).toBeCloseTo(1, 6);
    expect(back.output.per_1m! / c.output.per_1m!).toBeCloseTo(1, 6);
    // A new price in analyze: everything scales with it, the split stays the simulator's.
    const dearer = JSON.parse((await runCli(['analyze', runDir, '--json', '--gpu-hour-cost', '5'])).stdout) as RunResult;
    expect(dearer.cost!.total_cost / (2 * c.total_cost)).toBeCloseTo(1, 6);
    expect(dearer.cost!.split).toEqual(c.split);
    const text = await runCli(['analyze', runDir]);
    expect(text.stdout).toMatch(/Cost \(2 × h100 at \$2\.500\/GPU-hour/);
    expect(text.stdout).toMatch(/per 1M output tokens/);
  });

  it('--prices takes the price of the simulated GPU from the example table, naming its date and source', async () => {
    const out = await runCli(['sim', 'run', ...LOAD, '--hardware', 'h200', '--prices', 'docs/prices.example.yaml', '--no-save', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const c = (JSON.parse(out.stdout) as RunResult).cost!;
    expect(c.gpu_hour_cost).toBe(4);
    expect(c.price_source).toMatch(/as of 2026-05-29.*EXAMPLE/);
  });

  it('bad cost input: one line, exit 2', async () => {
    const noPrice = await runCli(['sim', 'run', ...LOAD, '--gpus', '4', '--no-save']);
    expect(noPrice.code).toBe(2);
    expect(noPrice.stderr).toMatch(/--gpus is for cost figures: add --gpu-hour-cost or --prices/);
    const unknownGpu = await runCli(['sim', 'run', ...LOAD, '--hardware', 'mi300x', '--prices', 'docs/prices.example.yaml', '--no-save']);
    expect(unknownGpu.code).toBe(2);
    expect(unknownGpu.stderr).toMatch(/no price for GPU "mi300x"/);
    const real = await runCli(['run', '--base-url', 'http://127.0.0.1:9', '--gpu-hour-cost', '2', '--no-save']);
    expect(real.code).toBe(2);
    expect(real.stderr).toMatch(/add --gpus/);
  });
});
