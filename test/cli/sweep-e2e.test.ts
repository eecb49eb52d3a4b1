/**
 * Sweeps end to end. Virtual time (`sim sweep`) for the curve, its analysis and the search;
 * real HTTP to the built-in simulator (fixed delays, so TTFT ≥ the prefill) for early stop.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'infermeter-sweep-'));
  dirs.push(d);
  return d;
};

const WORKLOAD = ['--random-input-len', '256', '--random-output-len', '64', '--num-prompts', '300', '--seed', '1'];

async function simSweep(args: string[], expectCode: number = EXIT_CODES.OK, workload: string[] = WORKLOAD): Promise<SweepResult> {
  const out = await runCli(['sim', 'sweep', '--no-save', '--json', ...workload, ...args]);
  expect(out.code, out.stderr).toBe(expectCode);
  return JSON.parse(out.stdout) as SweepResult;
}

describe('sim sweep (virtual time)', () => {
  it('--auto with a latency SLO: judged on the curve stages, not on its own all-at-once probe', { timeout: 120_000 }, async () => {
    // Measured: TTFT p95 ≈ 24–102 ms on the baseline and the three rates, ≈ 2.6 s on the probe.
    const r = await simSweep(['--auto', '3', '--slo', 'p95(ttft) < 500ms']);
    const probe = r.stages.find((s) => s.role === 'probe')!;
    expect(probe.slos_pass).toBe(false);
    expect(r.stages.filter((s) => s.role !== 'probe').every((s) => s.slos_pass === true)).toBe(true);
    expect(r.pass).toBe(true);
    const text = await runCli(['sim', 'sweep', '--no-save', ...WORKLOAD, '--auto', '3', '--slo', 'p95(ttft) < 500ms']);
    expect(text.code).toBe(EXIT_CODES.OK);
    expect(text.stdout).toMatch(/SLOs are judged on the curve stages only, not on the max-throughput probe/);
    // A curve stage that fails still fails the sweep.
    await simSweep(['--auto', '3', '--slo', 'p95(ttft) < 50ms'], EXIT_CODES.SLO_FAILED);
  });

  it('--auto: baseline, probe, N rates between; saturation and knee where the curve says', { timeout: 120_000 }, async () => {
    // The README's example: the default workload, 1,000 requests per stage.
    const r = await simSweep(['--auto', '6', '--hardware', 'h100', '--model', 'llama-3.1-8b'], EXIT_CODES.OK, []);
    expect(r.schema).toBe('infermeter.sweep/2');
    expect(r.stages.map((s) => s.role)).toEqual(['baseline', 'probe', 'auto', 'auto', 'auto', 'auto', 'auto', 'auto']);
    const base = r.stages[0]!.metrics.throughput.request_per_s!;
    const probe = r.stages[1]!.metrics.throughput.request_per_s!;
    expect(r.auto!.rates).toHaveLength(6);
    expect(r.auto!.rates[5]!).toBeCloseTo(probe, 2);
    expect(r.auto!.rates[0]!).toBeCloseTo(base + (probe - base) / 6, 2);
    // Same workload and seed in every stage: identical prompts, so identical token totals.
    expect(new Set(r.stages.map((s) => s.metrics.tokens.input_total)).size).toBe(1);

    // The saturation point satisfies its definition on the curve as reported…
    const order = r.analysis.order.map((i) => r.stages[i]!);
    const sat = r.analysis.saturation!;
    expect(sat).not.toBeNull();
    const at = order.findIndex((s) => s.index === sat.index);
    const tput = (k: number) => order[k]!.metrics.throughput.output_tokens_per_s!;
    for (let k = at + 1; k < order.length; k++) expect(tput(k)).toBeLessThanOrEqual(tput(at) * 1.05);
    // The stage before it does not qualify: a later stage rose more than 5% above it.
    expect(Math.max(...order.slice(at).map((_, k) => tput(at + k)))).toBeGreaterThan(tput(at - 1) * 1.05);
    // …and, for the simulated engine, lies where throughput reaches the probe's maximum.
    expect(tput(at)).toBeGreaterThan(r.stages[1]!.metrics.throughput.output_tokens_per_s! * 0.9);
    // The knee comes no later than saturation: tail latency bends before the plateau.
    const knee = order.findIndex((s) => s.index === r.analysis.knee!.index);
    expect(knee).toBeGreaterThan(0);
    expect(knee).toBeLessThanOrEqual(at);
    expect(r.analysis.degradation).toBeNull();
  });

  it('writes one sweep directory: records with their stage, and sweep.json', async () => {
    const dir = tempDir();
    const out = await runCli(['sim', 'sweep', ...WORKLOAD, '--num-prompts', '40', '--request-rates', '2,8,inf', '--stage-warmup', '5', '--result-dir', dir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/#\s+load\s+TTFT p50/);
    const sweepDir = join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!);
    const result = JSON.parse(readFileSync(join(sweepDir, 'sweep.json'), 'utf8')) as SweepResult;
    const { records } = readRecordsFile(join(sweepDir, 'records.jsonl'));
    expect(records).toHaveLength(120);
    for (const stage of [0, 1, 2]) {
      const mine = records.filter((x) => x.stage === stage);
      expect(mine).toHaveLength(40);
      expect(mine.filter((x) => x.phase === 'warmup')).toHaveLength(5);
      expect(result.stages[stage]!.metrics.requests.total).toBe(35);
    }
    expect(result.stages.map((s) => s.load)).toEqual([{ kind: 'rate', rate: 2 }, { kind: 'rate', rate: 8 }, { kind: 'rate', rate: 'inf' }]);
  });

  it('--search converges to within its precision: the rate found holds, the bracket’s top fails', { timeout: 60_000 }, async () => {
    const slos = ['--slo', 'p95(ttft) < 500ms', '--slo', 'p95(tpot) < 40ms'];
    const r = await simSweep(['--search', ...slos, '--precision', '5%']);
    const s = r.search!;
    expect(s.found).not.toBeNull();
    const [lo, hi] = s.bracket as [number, number];
    expect((hi - lo) / lo).toBeLessThanOrEqual(0.05);
    const stageAt = (load: number) => r.stages[s.probes.find((p) => p.load === load)!.stage]!;
    expect(stageAt(lo).slos_pass).toBe(true);
    expect(stageAt(hi).slos_pass).toBe(false);
    // Each probe is its own stage and no load ran twice.
    expect(new Set(s.probes.map((p) => p.load)).size).toBe(s.probes.length);
    // Re-running the found rate alone reproduces the pass (virtual time is deterministic).
    const again = await runCli(['sim', 'run', '--no-save', '--json', ...WORKLOAD, '--request-rate', String(lo), ...slos]);
    expect(again.code).toBe(EXIT_CODES.OK);
  });

  it('exit 3 when a stage fails its SLOs; the degradation point is that stage', async () => {
    // p95 TTFT: 17.3, 19.9 and 67.8 ms at these rates.
    const r = await simSweep(['--request-rates', '1,4,64', '--slo', 'p95(ttft) < 50ms'], EXIT_CODES.SLO_FAILED);
    expect(r.stages.map((s) => s.slos_pass)).toEqual([true, true, false]);
    expect(r.analysis.degradation).toMatchObject({ index: 2, reason: 'an SLO failed' });
  });

  it('bad input: one line, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--request-rates', ''], /--request-rates: give at least one rate/],
      [['--request-rates', '4,2'], /stages must increase, but 2 follows 4/],
      [['--concurrencies', '8,4'], /--concurrencies: stages must increase/],
      [['--search'], /--search: give the SLOs to hold with --slo/],
      [[], /say which stages to run/],
      [['--auto', '4', '--request-rates', '1,2'], /pick one way/],
      [['--auto', '0'], /--auto: expected a positive integer/],
      [['--search', '--slo', 'p95(ttft) < 1s', '--precision', '0%'], /--precision: expected a share/],
    ];
    for (const [args, message] of cases) {
      const out = await runCli(['sim', 'sweep', '--no-save', ...args]);
      expect(out.code, args.join(' ')).toBe(EXIT_CODES.USAGE);
      expect(out.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(out.stderr).toMatch(message);
    }
  });
});

describe('sweep over HTTP: early stop', { timeout: 60_000 }, () => {
  const BASE = ['sweep', '--sim-prefill-ms', '30', '--sim-per-token-ms', '1', '--random-input-len', '16', '--random-output-len', '4', '--progress', 'none', '--no-save', '--json', '--allow-invalid'];

  it('stops a stage once its SLO can no longer be met', async () => {
    // Every TTFT is ≥ 30 ms (the fixed prefill). p50 < 5 ms over 60 requests is hopeless once
    // 60 − b ≤ ⌊59·0.5⌋ = 29, i.e. at the 31st completion: the rest of the stage is not sent.
    const out = await runCli([...BASE, '--request-rates', '10', '--num-prompts', '60', '--slo', 'p50(ttft) < 5ms']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.SLO_FAILED);
    const stage = (JSON.parse(out.stdout) as SweepResult).stages[0]!;
    expect(stage.stopped_early).toMatch(/"p50\(ttft\) < 5ms" can no longer be met: 31 of 31 values/);
    expect(stage.slos_pass).toBe(false);
    expect(stage.metrics.requests.ok).toBeLessThan(60);
  });

  it('never stops a stage whose SLO can still be met', async () => {
    const out = await runCli([...BASE, '--request-rates', '20', '--num-prompts', '30', '--slo', 'p50(ttft) < 1h', '--slo', 'error_rate < 50%']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.OK);
    const stage = (JSON.parse(out.stdout) as SweepResult).stages[0]!;
    expect(stage.stopped_early).toBeNull();
    expect(stage.metrics.requests.ok).toBe(30);
  });
});

describe('sweep over HTTP: the server side per stage', { timeout: 60_000 }, () => {
  const ARGS = ['sweep', '--request-rates', '4,16', '--num-prompts', '16', '--random-input-len', '64', '--random-output-len', '8', '--progress', 'none', '--no-save', '--allow-invalid'];

  it("each stage carries the server's series scraped during it; the console has a table of them", async () => {
    const out = await runCli([...ARGS, '--json']);
    expect([EXIT_CODES.OK, EXIT_CODES.SLO_FAILED]).toContain(out.code);
    const stages = (JSON.parse(out.stdout) as SweepResult).stages;
    expect(stages).toHaveLength(2);
    for (const s of stages) {
      expect(s.server?.mode).toBe('scrape');
      expect(s.server!.sources[0]!.engines).toContain('vllm');
      expect(s.server!.series.running?.mean).toBeGreaterThanOrEqual(0);
      expect(s.server!.series.kv_usage).toBeDefined();
      // The span summarized is the stage's own measured window.
      expect(s.server!.span_ms.to).toBeGreaterThan(s.server!.span_ms.from);
    }
    const text = await runCli(ARGS);
    expect(text.stdout).toMatch(/Server side per stage/);
    expect(text.stdout).toMatch(/running +waiting +KV cache %/);
  });

  it('--no-metrics: no server section', async () => {
    const out = await runCli([...ARGS, '--json', '--no-metrics']);
    expect((JSON.parse(out.stdout) as SweepResult).stages.map((s) => s.server)).toEqual([null, null]);
  });
});

describe('sweep over HTTP with answer checks', { timeout: 90_000 }, () => {
  it("each stage has its quality figures, and analyze recomputes them from the records", async () => {
    const results = tempDir();
    const out = await runCli(['sweep', '--dataset-name', 'eval', '--request-rates', '5,20', '--num-prompts', '40', '--sim-accuracy', '0.8', '--progress', 'none', '--no-metrics', '--result-dir', results, '--allow-invalid']);
    expect([EXIT_CODES.OK, EXIT_CODES.SLO_FAILED]).toContain(out.code);
    expect(out.stdout).toMatch(/out tok\/s +accuracy +errors/);
    const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
    const saved = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult;
    for (const s of saved.stages) {
      expect(s.quality!.checked).toBe(s.metrics.requests.total);
      expect(s.quality!.accuracy.k).toBeLessThanOrEqual(s.quality!.answered);
    }
    const again = await runCli(['analyze', dir, '--json']);
    const re = JSON.parse(again.stdout) as SweepResult;
    expect(re.stages.map((s) => s.quality!.accuracy)).toEqual(saved.stages.map((s) => s.quality!.accuracy));
  });
});

