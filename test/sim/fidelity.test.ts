/**
 * The fidelity table of docs/simulator.md, reproduced: every published measurement in
 * fidelity/cases.ts replayed in virtual time, the median |simulated / measured − 1| per figure
 * type held to the documented figure plus a small margin, separately for the fitting rows and the
 * held-out rows, so a cost-model change cannot silently make the simulator less faithful.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, V0_STEP_OVERHEAD_MS } from '../../src/sim/index.js';
import { CASES, SOURCES } from './fidelity/cases.js';
import { GPUSTACK_PROMPTS } from './fidelity/gpustack-held-out.js';
import { LAMBDA_HELD_OUT } from './fidelity/lambda-held-out.js';
import { medianErrors, runCase, type CaseResult } from './fidelity/run-case.js';

/** docs/simulator.md §Fidelity: median absolute error per figure type with the default parameters. */
const DOCUMENTED_FIT = { ttft: 0.287, tpot: 0.048, throughput: 0.069, all: 0.079 };
const DOCUMENTED_HELD_OUT = { ttft: 0.381, tpot: 0.156, throughput: 0.139, all: 0.178 };
/**
 * Round 4's held-out rows alone (issue 27: TensorRT-LLM's throughput tables and GPUStack's Qwen3-14B
 * saturation runs), committed before any parameter changed; their median before round 4's
 * mechanisms was TTFT 43.1%, TPOT 17.7%, throughput 26.2%, all 27.0% (the baseline).
 */
const ROUND4 = new Set(['trtllm-perf', 'gpustack-14b']);
const DOCUMENTED_ROUND4 = { ttft: 0.381, tpot: 0.304, throughput: 0.157, all: 0.193 };
const MARGIN = 0.02;

describe('fidelity against published engine measurements', () => {
  const results: CaseResult[] = CASES.flatMap((c) => runCase(c));
  const fit = results.filter((r) => !r.held_out);
  const held = results.filter((r) => r.held_out);

  it('covers the table: ≥ 12 measurements, ≥ 3 GPU types incl. H200, small and large models, every figure type, a held-out subset', () => {
    expect(results.length).toBeGreaterThanOrEqual(12);
    const gpus = new Set(CASES.map((c) => c.hardware));
    expect(gpus.size).toBeGreaterThanOrEqual(3);
    expect(gpus.has('h200')).toBe(true);
    expect(new Set(results.map((r) => (r.figure === 'itl' ? 'tpot' : r.figure)))).toEqual(new Set(['ttft', 'tpot', 'throughput']));
    expect(held.length).toBeGreaterThanOrEqual(63);
    expect(new Set(CASES.filter((c) => c.held_out === true).map((c) => c.hardware))).toEqual(new Set(['h100', 'h200', 'a100']));
    expect(new Set(held.map((r) => (r.figure === 'itl' ? 'tpot' : r.figure)))).toEqual(new Set(['ttft', 'tpot', 'throughput']));
    for (const c of CASES) expect(SOURCES.map((s) => s.id)).toContain(c.source);
    for (const r of results) expect(Number.isFinite(r.simulated) && r.simulated > 0).toBe(true);
  });

  it("the held-out rows' lengths agree with their sources' token totals (a check on the copy)", () => {
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    // GPUStack publishes totals only: the replayed lengths are their means, rounded.
    expect(Math.round(GPUSTACK_PROMPTS.total_input_tokens / GPUSTACK_PROMPTS.requests)).toBe(GPUSTACK_PROMPTS.input);
    expect(Math.round(GPUSTACK_PROMPTS.total_output_tokens / GPUSTACK_PROMPTS.requests)).toBe(GPUSTACK_PROMPTS.output);
    for (const f of LAMBDA_HELD_OUT) {
      expect(f.output_lens.length, f.id).toBe(f.input_lens.length);
      expect(sum(f.input_lens), f.id).toBe(f.total_input_tokens);
      expect(sum(f.output_lens), f.id).toBe(f.total_output_tokens);
    }
  });

  it('median absolute error per figure type stays within the documented figures: fitting rows', () => {
    const e = medianErrors(fit);
    for (const [k, v] of Object.entries(DOCUMENTED_FIT)) expect(e[k], k).toBeLessThanOrEqual(v + MARGIN);
  });

  it('median absolute error per figure type stays within the documented figures: held-out rows', () => {
    const e = medianErrors(held);
    for (const [k, v] of Object.entries(DOCUMENTED_HELD_OUT)) expect(e[k], k).toBeLessThanOrEqual(v + MARGIN);
  });

  it('median absolute error per figure type stays within the documented figures: round-4 held-out rows alone', () => {
    const round4 = new Set(CASES.filter((c) => ROUND4.has(c.source)).map((c) => c.id));
    const rs = held.filter((r) => round4.has(r.id));
    expect(rs.length).toBeGreaterThanOrEqual(40);
    const e = medianErrors(rs);
    for (const [k, v] of Object.entries(DOCUMENTED_ROUND4)) expect(e[k], k).toBeLessThanOrEqual(v + MARGIN);
  });

  it("vLLM V0's step overhead is the best value on the V0 fitting rows only (held-out rows take no part)", () => {
    const v0 = CASES.filter((c) => c.preset === 'vllm-v0' && c.held_out !== true);
    expect(v0.length).toBeGreaterThanOrEqual(4);
    const grid = [1, 1.5, 2, 2.5, 3, 3.5, 4];
    const score = (ms: number): number => medianErrors(v0.flatMap((c) => runCase(c, { step_overhead_ms: ms })))['all']!;
    const scores = grid.map(score);
    expect(grid[scores.indexOf(Math.min(...scores))]).toBe(V0_STEP_OVERHEAD_MS);
  });

  it('the multi-step overhead is the best value on the V0 fitting rows only: least median error, then least mean error', () => {
    const v0 = CASES.filter((c) => c.preset === 'vllm-v0' && c.held_out !== true);
    const grid = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5];
    const score = (ms: number): [number, number] => {
      const rs = v0.flatMap((c) => runCase(c, { multi_step_overhead_ms: ms }));
      return [medianErrors(rs)['all']!, rs.reduce((a, r) => a + Math.abs(r.ratio - 1), 0) / rs.length];
    };
    const scores = grid.map(score);
    // The median is flat over part of the grid (it sits on a figure the windows do not move): the mean breaks the tie.
    const best = scores.reduce((b, s, i) => (s[0] < scores[b]![0] || (s[0] === scores[b]![0] && s[1] < scores[b]![1]) ? i : b), 0);
    expect(grid[best]).toBe(DEFAULT_ENGINE_CONFIG.multi_step_overhead_ms);
  });
});
