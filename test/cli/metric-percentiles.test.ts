/**
 * `--metric-percentiles` takes any list (vLLM's flag): sim run (virtual time, deterministic)
 * writes the asked percentiles into result.json, the vLLM JSON under vLLM's keys and the
 * summary; analyze keeps the run's list; a bad value is one line, exit 2.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
const LATENCY = { ttft: 'ttft_ms', tpot: 'tpot_ms', itl: 'itl_ms', e2el: 'e2el_ms' } as const;

describe('sim run --metric-percentiles 25,75,99.99', () => {
  let dir: string;
  let result: RunResult;
  let vllm: Record<string, unknown>;
  let stdout: string;

  beforeAll(async () => {
    const resultDir = tempDir('pcts');
    const vllmPath = join(tempDir('pcts-v'), 'v.json');
    // 99.99 and 75 out of order, 25 twice: kept once, ascending.
    const out = await runCli(['sim', 'run', '--num-prompts', '30', '--request-rate', '10', '--random-input-len', '64', '--random-output-len', '12', '--metric-percentiles', '99.99,25,75,25', '--vllm-json', vllmPath, '--result-dir', resultDir, '--progress', 'none', '--no-report']);
    expectCompleted(out);
    stdout = out.stdout;
    const dirs = readdirSync(resultDir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.'));
    dir = join(resultDir, dirs[0]!.name);
    result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
    vllm = JSON.parse(readFileSync(vllmPath, 'utf8')) as Record<string, unknown>;
  });

  it('the vLLM JSON has exactly vLLM’s keys for them (p25_, p75_, p99.99_), with result.json’s values', () => {
    expect(Object.keys(vllm).filter((k) => /^p\d/.test(k))).toEqual(METRICS.flatMap((m) => [`p25_${m}_ms`, `p75_${m}_ms`, `p99.99_${m}_ms`]));
    for (const m of METRICS) {
      const d = result.metrics.latency[LATENCY[m]];
      expect(d.count).toBeGreaterThan(0);
      expect(vllm[`p25_${m}_ms`]).toBe(d.percentiles!['25']);
      expect(vllm[`p75_${m}_ms`]).toBe(d.percentiles!['75']);
      expect(vllm[`p99.99_${m}_ms`]).toBe(d.percentiles!['99.99']);
      // Ordered as percentiles are: p25 ≤ p50 ≤ p75 ≤ p99.99 ≤ max.
      expect(d.percentiles!['25']!).toBeLessThanOrEqual(d.p50!);
      expect(d.p50!).toBeLessThanOrEqual(d.percentiles!['75']!);
      expect(d.percentiles!['99.99']!).toBeLessThanOrEqual(d.max!);
    }
  });

  it('result.json: every latency Distribution carries them; spec.json keeps the list once, ascending', () => {
    for (const d of Object.values(result.metrics.latency)) expect(Object.keys(d.percentiles!).sort()).toEqual(['25', '75', '99.99']);
    const spec = JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) as { output: { metric_percentiles: number[] } };
    expect(spec.output.metric_percentiles).toEqual([25, 75, 99.99]);
  });

  it('the summary lists them per metric as vLLM prints them', () => {
    const ttft = result.metrics.latency.ttft_ms.percentiles!;
    expect(stdout).toContain('Percentiles asked for (--metric-percentiles):');
    expect(stdout).toContain(`${'P25 TTFT (ms):'.padEnd(40)} ${ttft['25']!.toFixed(2)}`);
    expect(stdout).toContain(`${'P99.99 TTFT (ms):'.padEnd(40)} ${ttft['99.99']!.toFixed(2)}`);
    const lines = stdout.split('\n').filter((l) => /^P[\d.]+ \w+ \(ms\):/.test(l)).map((l) => l.split(' (ms)')[0]);
    expect(lines).toEqual(['TTFT', 'TPOT', 'ITL', 'E2EL'].flatMap((m) => [`P25 ${m}`, `P75 ${m}`, `P99.99 ${m}`]));
  });

  it('analyze keeps the run’s list without the flag, takes a new one with it, and honours --percentile-metrics', async () => {
    const again = await runCli(['analyze', dir, '--json']);
    expectCompleted(again);
    const r = JSON.parse(again.stdout) as RunResult;
    expect(Object.keys(r.metrics.latency.itl_ms.percentiles!).sort()).toEqual(['25', '75', '99.99']);
    const other = await runCli(['analyze', dir, '--metric-percentiles', '25,12.5', '--percentile-metrics', 'e2el']);
    expectCompleted(other);
    expect(other.stdout.split('\n').filter((l) => /^P[\d.]+ \w+ \(ms\):/.test(l)).map((l) => l.split(' (ms)')[0])).toEqual(['P12.5 E2EL', 'P25 E2EL']);
  });

  it('without the flag nothing changes: no percentiles field, no extra lines', async () => {
    const out = await runCli(['sim', 'run', '--num-prompts', '5', '--no-save', '--json']);
    expectCompleted(out);
    expect((JSON.parse(out.stdout) as RunResult).metrics.latency.ttft_ms).not.toHaveProperty('percentiles');
  });

  it.each([['100'], ['0'], ['-1'], ['abc'], ['0x10'], ['25,Infinity']])('refuses %s in one line naming the flag and the value, exit 2', async (bad) => {
    const out = await runCli(['sim', 'run', '--num-prompts', '5', '--no-save', '--metric-percentiles', bad]);
    expect(out.code).toBe(2);
    const value = bad.split(',').pop()!;
    expect(out.stderr.trim().split('\n')).toEqual([`error: --metric-percentiles: "${value}": a percentile is a number greater than 0 and less than 100 (e.g. 25,75,99.99)`]);
  });
});
