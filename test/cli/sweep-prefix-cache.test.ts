/**
 * A sweep measures the server, not its cache (issue 23): in virtual time the stages share one
 * simulated engine, prefix cache on, as they share one server over HTTP. With fresh prompts per
 * stage (the default) every stage's prefix-cache hit rate is the workload's own; sending the same
 * prompts again (`--prompt-salt ""`, the old behaviour) makes it climb after the first stage, and
 * the stages that differ are flagged. Deterministic: virtual time.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { PlanReport } from '../../src/report/plan-report.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'infermeter-sweep-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Every prompt exactly 1,024 tokens (no length spread): 100 per stage, 102,400 tokens — far less than the simulated H100's KV cache.
const WORKLOAD = ['--random-input-len', '1024', '--random-range-ratio', '0', '--random-output-len', '32', '--num-prompts', '100', '--seed', '1'];

async function simSweep(args: string[], code: number = EXIT_CODES.OK): Promise<{ r: SweepResult; text: string }> {
  const out = await runCli(['sim', 'sweep', '--no-save', '--json', ...WORKLOAD, ...args]);
  expect(out.code, out.stderr).toBe(code);
  const text = await runCli(['sim', 'sweep', '--no-save', ...WORKLOAD, ...args]);
  return { r: JSON.parse(out.stdout) as SweepResult, text: text.stdout };
}

const rates = (r: SweepResult) => r.stages.map((s) => s.prefix_cache?.hit_rate);

describe('per-stage prefix-cache hit rate (virtual time, one engine for the sweep)', () => {
  it('fresh prompts per stage: every stage at the workload’s own hit rate, none flagged', async () => {
    const { r, text } = await simSweep(['--request-rates', '2,4,8']);
    expect(r.schema).toBe('infermeter.sweep/2');
    // Random prompts share no block with each other, and each stage's are new to the cache.
    expect(rates(r)).toEqual([0, 0, 0]);
    expect(r.stages[0]!.prefix_cache).toEqual({ hit_rate: 0, source: 'simulator', queried_tokens: 102_400, hit_tokens: 0 });
    expect(r.prefix_cache).toEqual({ margin: 0.1, stages: [0, 1, 2], flagged: [] });
    expect(text).toMatch(/prefix hit\n/);
    expect(text).not.toContain('prefix cache: stage');
  });

  it('the same prompts in every stage (--prompt-salt ""): the hit rate climbs after stage 1, and the stages are flagged', async () => {
    const { r, text } = await simSweep(['--request-rates', '2,4,8', '--prompt-salt', '']);
    // Stage 1 fills the cache; later stages find every full block of every prompt but the one
    // token that must be computed: ⌊1023 / 16⌋ × 16 = 1008 of 1024 tokens per prompt.
    expect(rates(r)).toEqual([0, 1008 / 1024, 1008 / 1024]);
    expect(r.prefix_cache!.flagged.map((f) => f.stage)).toEqual([0, 1, 2]);
    expect(r.prefix_cache!.flagged[1]).toEqual({ stage: 1, hit_rate: 1008 / 1024, others_median: 504 / 1024 });
    // The cache made the later stages faster: what the flag is there for.
    expect(r.stages[1]!.metrics.latency.ttft_ms.p50!).toBeLessThan(r.stages[0]!.metrics.latency.ttft_ms.p50! * 0.7);
    expect(text).toContain("prefix cache: stage 2 (4 req/s) hit 98.4% of its prompt tokens vs the other stages' median 49.2% (margin 10 points)");
    expect(text).toMatch(/98\.4%!/);
  });

  it('the sweep report shows each stage’s hit rate and the flagged stages', async () => {
    const out = await runCli(['sim', 'sweep', ...WORKLOAD, '--request-rates', '2,4,8', '--prompt-salt', '', '--result-dir', tmp, '--name', 'cached']);
    expect(out.code, out.stderr).toBe(0);
    const dir = join(tmp, readdirSync(tmp).find((d) => d.endsWith('-cached'))!);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<th>prefix hit</th>');
    expect(html).toContain('98.4 % (differs)');
    expect(html).toContain('prefix cache: stage 2 (4 req/s) hit 98.4% of its prompt tokens');
  });

  it('a shared-prefix workload keeps its prompts across stages (the opt-out): its later stages are served from the cache', async () => {
    const { r } = await simSweep(['--request-rates', '2,4', '--random-prefix-len', '512']);
    const [first, second] = rates(r) as number[];
    // Prompts are the 512-token prefix + 1,024 tokens. Stage 1 shares the prefix between its own
    // requests (under a third of its tokens: the prefix is a third of a prompt, and the first
    // requests compute it side by side); stage 2 finds whole prompts: ⌊1535 / 16⌋ × 16 = 1520 of 1536.
    expect(first).toBeGreaterThan(0.2);
    expect(first).toBeLessThan(1 / 3);
    expect(second).toBe(1520 / 1536);
    expect(r.prefix_cache!.flagged.length).toBe(2);
  });

  it('--search: every probe and the confirmation run get fresh prompts; the confirmation is reported', async () => {
    const { r, text } = await simSweep(['--search', '--slo', 'p95(tpot) < 15ms', '--search-max', '64'], EXIT_CODES.OK);
    expect(new Set(rates(r))).toEqual(new Set([0]));
    const s = r.search!;
    expect(s.confirmations).toHaveLength(1);
    const c = s.confirmations![0]!;
    expect(c).toMatchObject({ load: s.bracketed, pass: true });
    expect(s.found).toBe(s.bracketed);
    expect(r.stages[c.stage]!.role).toBe('confirm');
    expect(text).toMatch(new RegExp(`pass +${s.found} req/s +\\(stage ${c.stage + 1}, confirmation with fresh prompts\\)`));
    expect(text).toContain('← confirmed');
  });
});

describe('plan --from a saved sweep says what kind of stage its concurrency was seen in', () => {
  it('rate stages: the peak in flight of an open loop, never "closed loop"', async () => {
    const out = await runCli(['sim', 'sweep', ...WORKLOAD, '--request-rates', '2,4,8', '--result-dir', tmp, '--name', 'rates']);
    expect(out.code, out.stderr).toBe(0);
    const dir = join(tmp, readdirSync(tmp).find((d) => d.endsWith('-rates'))!);
    const plan = await runCli(['plan', '--traffic', '20rps', '--slo', 'p95(tpot) < 50ms', '--from', dir]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('closed loop, SLOs met');
    const json = JSON.parse((await runCli(['plan', '--traffic', '20rps', '--slo', 'p95(tpot) < 50ms', '--from', dir, '--json'])).stdout) as PlanReport;
    const o = json.options[0]!;
    expect(o.max_concurrency_source).toBe('the peak in flight of an open-loop stage at 8 req/s that met the SLOs, not a closed loop held at it');
    expect(plan.stdout).toContain(`max concurrency per replica  = ${o.max_concurrency} requests in flight (the peak in flight of an open-loop stage at 8 req/s that met the SLOs, not a closed loop held at it)`);
  });

  it('concurrency stages: the closed loop that met the SLOs', async () => {
    const out = await runCli(['sim', 'sweep', ...WORKLOAD, '--concurrencies', '1,4,16', '--result-dir', tmp, '--name', 'conc']);
    expect(out.code, out.stderr).toBe(0);
    const dir = join(tmp, readdirSync(tmp).find((d) => d.endsWith('-conc'))!);
    const json = JSON.parse((await runCli(['plan', '--traffic', '20rps', '--slo', 'p95(tpot) < 50ms', '--from', dir, '--json'])).stdout) as PlanReport;
    expect(json.options[0]!.max_concurrency).toBe(16);
    expect(json.options[0]!.max_concurrency_source).toBe('a closed-loop stage at c=16 met the SLOs');
  });
});
