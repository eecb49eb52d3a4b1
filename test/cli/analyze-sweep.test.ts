/** analyze of a sweep directory: every stage recomputed from records.jsonl and judged again. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const COMMON = ['--num-prompts', '60', '--random-input-len', '256', '--random-output-len', '32', '--seed', '5', '--no-report'];

async function sweep(args: string[]): Promise<{ dir: string; saved: SweepResult }> {
  const results = tempDir('analyze-sweep');
  const out = await runCli(['sim', 'sweep', ...COMMON, '--result-dir', results, ...args]);
  expect([EXIT_CODES.OK, EXIT_CODES.SLO_FAILED], out.stderr).toContain(out.code);
  const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
  return { dir, saved: JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult };
}

async function analyze(dir: string, args: string[] = []): Promise<{ code: number; result: SweepResult }> {
  const out = await runCli(['analyze', dir, '--json', ...args]);
  return { code: out.code, result: JSON.parse(out.stdout) as SweepResult };
}

describe('analyze SWEEP_DIR', () => {
  it('recomputes each stage from its records as the sweep did; --slo re-judges every stage (exit 3 when one fails)', async () => {
    const { dir, saved } = await sweep(['--request-rates', '2,16']);
    const same = await analyze(dir);
    expect(same.code).toBe(EXIT_CODES.OK);
    expect(same.result.stages).toHaveLength(2);
    for (const [i, s] of same.result.stages.entries()) {
      const before = saved.stages[i]!.metrics;
      expect(s.metrics.requests).toEqual(before.requests);
      // Records on disk keep µs: percentiles agree to 1e-3 ms.
      expect(s.metrics.latency.ttft_ms.p99!).toBeCloseTo(before.latency.ttft_ms.p99!, 2);
      expect(s.metrics.latency.tpot_ms.p50!).toBeCloseTo(before.latency.tpot_ms.p50!, 2);
    }
    // A bound between the two stages' TTFT p99: the light stage passes, the heavy one fails.
    const [light, heavy] = saved.stages.map((s) => s.metrics.latency.ttft_ms.p99!);
    expect(heavy!).toBeGreaterThan(light!);
    const bound = ((light! + heavy!) / 2).toFixed(3);
    const judged = await analyze(dir, ['--slo', `p99(ttft) < ${bound}ms`]);
    expect(judged.code).toBe(EXIT_CODES.SLO_FAILED);
    expect(judged.result.slos).toEqual([`p99(ttft) < ${bound}ms`]);
    expect(judged.result.stages.map((s) => s.slos_pass)).toEqual([true, false]);
    expect(judged.result.pass).toBe(false);
    expect(judged.result.analysis.degradation?.index).toBe(1);
  }, 120_000);

  it('a search is re-judged from its saved probes and confirmation runs: the highest passing load below every failing one, where its confirmation held', async () => {
    // p99 TTFT reaches 57 ms at 64 req/s (measured): the search's answer lies below 64.
    const { dir, saved } = await sweep(['--search', '--slo', 'p99(ttft) < 50ms', '--search-start', '2', '--search-max', '64']);
    expect(saved.search!.probes.length).toBeGreaterThan(1);
    expect(saved.search!.confirmations).toHaveLength(1);
    const again = await analyze(dir);
    expect(again.result.search!.found).toBe(saved.search!.found);
    expect(again.result.search!.reason).toMatch(new RegExp(`${saved.search!.found} held in its saved confirmation run`));
    // The stages keep the prefix-cache figure the sweep saw (the records do not hold it).
    expect(again.result.stages.map((s) => s.prefix_cache)).toEqual(saved.stages.map((s) => s.prefix_cache));
    // An SLO nothing meets: no load found, exit 3.
    const none = await analyze(dir, ['--slo', 'p99(ttft) < 0.001ms']);
    expect(none.code).toBe(EXIT_CODES.SLO_FAILED);
    expect(none.result.search!.found).toBeNull();
    expect(none.result.search!.reason).toMatch(/re-judged by analyze/);
    // An SLO every probe meets: the highest probe is the re-judged bracket's answer, but it was never
    // run again, so the answer stays the highest load confirmed in the saved runs.
    const all = await analyze(dir, ['--slo', 'p99(ttft) < 1h']);
    expect(all.code).toBe(EXIT_CODES.OK);
    const top = Math.max(...saved.search!.probes.map((p) => p.load));
    expect(all.result.search!.bracketed).toBe(top);
    expect(all.result.search!.found).toBe(saved.search!.found);
    expect(all.result.search!.reason).toMatch(new RegExp(`${top} has no saved confirmation run \\(analyze runs no new load\\); the highest load that held in a saved confirmation run is ${saved.search!.found}`));
  }, 120_000);
});
