import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { junitErrors } from '../helpers/junit.js';
import { plantTtftRegression } from '../helpers/planted-runs.js';

const tmp = mkdtempSync(join(tmpdir(), 'infermeter-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Same configuration, two seeds: different arrivals and lengths drawn from the same distributions.
const LOAD = ['--request-rate', '8', '--num-prompts', '300', '--random-input-len', '512', '--random-output-len', '64', '--random-range-ratio', '0.5', '--goodput', 'ttft:100', '--gpu-hour-cost', '2'];

async function simRun(name: string, args: string[]): Promise<string> {
  const out = await runCli(['sim', 'run', ...args, '--result-dir', tmp, '--name', name, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return join(tmp, readdirSync(tmp).find((d) => d.endsWith(`-${name}`))!);
}

let a: string;
let b: string;
beforeAll(async () => {
  a = await simRun('a', [...LOAD, '--seed', '1']);
  b = await simRun('b', [...LOAD, '--seed', '2']);
});

describe('infermeter compare', () => {
  it("reads a costed run's cost per 1M tokens from its result's cost block", async () => {
    const json = JSON.parse((await runCli(['compare', a, b, '--json'])).stdout) as { pairs: Array<{ figures: Array<{ figure: { id: string }; a: number | null; b: number | null }> }> };
    const cost = json.pairs[0]!.figures.find((f) => f.figure.id === 'cost_per_1m_tokens')!;
    const block = (dir: string) => (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { cost: { per_1m_tokens: number } }).cost.per_1m_tokens;
    // --gpu-hour-cost 2 on 1 GPU: the block's figure is the one compare shows, bit for bit.
    expect(cost.a).toBe(block(a));
    expect(cost.b).toBe(block(b));
    expect(cost.a).toBeGreaterThan(0);
  });

  it('two runs of the same configuration with different seeds: same load shape, no significant change', async () => {
    const out = await runCli(['compare', a, b, '--fail-on-regression', '5%']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/Load shape: the same/);
    expect(out.stdout).toMatch(/input lengths \(KS test\).*p=\d\.\d{3} same/);
    expect(out.stdout).toMatch(/1000 resamples \(seed 0\); resampling unit: requests, in non-overlapping blocks/);
    expect(out.stdout).toMatch(/Verdict: no significant change/);
    const json = JSON.parse((await runCli(['compare', a, b, '--json'])).stdout) as { pairs: Array<{ figures: Array<{ verdict: string; ci: unknown }> }> };
    const figures = json.pairs[0]!.figures;
    expect(figures.length).toBe(18);
    expect(figures.every((f) => f.verdict === 'no significant change' && f.ci !== null)).toBe(true);
  });

  it('detects a planted 20% TTFT regression and exits 4 with --fail-on-regression 5%', async () => {
    const slow = join(tmp, 'slow');
    plantTtftRegression(b, slow);
    const summaryFile = join(tmp, 'step-summary.md');
    writeFileSync(summaryFile, '# earlier step\n\n');
    const out = await runCli(['compare', a, slow, '--fail-on-regression', '5%', '--markdown', join(tmp, 'pr.md'), '--junit', join(tmp, 'compare.xml')], { GITHUB_STEP_SUMMARY: summaryFile });
    expect(out.code, out.stdout).toBe(EXIT_CODES.REGRESSION);
    // The gates: JUnit XML that validates, one testcase per judged figure and per run's validity.
    const xml = readFileSync(join(tmp, 'compare.xml'), 'utf8');
    expect(await junitErrors(xml)).toEqual([]);
    const failedFigures = (out.stderr.match(/significant regression beyond --fail-on-regression: (.*)/)?.[1] ?? '').split('; ').length;
    expect(xml).toMatch(new RegExp(`<testsuites name="infermeter.compare" tests="\\d+" failures="${failedFigures}"`));
    expect(xml).toMatch(/<testcase name="TTFT p50 \(ms\)" classname="infermeter.compare" time="0">\n\s+<failure type="gate" message="measured \+\d+\.\d%, threshold regression ≤ 5\.0%: significantly worse: \+\d+\.\d% \(A 38\.25, B \d+\.\d+\)/);
    expect(xml.match(/<testcase name="validity"/g)).toHaveLength(2);
    expect(out.stdout).toMatch(/Gates \(failed first\):\n {2}FAIL {2}TTFT p50 \(ms\)/);
    // GitHub's job summary: appended, gates first.
    const step = readFileSync(summaryFile, 'utf8');
    expect(step).toMatch(/^# earlier step\n\n\*\*Gates: \d+ of \d+ FAILED\*\*/);
    // The median is judged worse; the tail percentiles of 300 requests move as much by chance
    // between two seeds (their intervals are wide), so only their direction is checked.
    expect(out.stdout).toMatch(/TTFT p50 \(ms\).*\+2\d\.\d%.*worse \(REGRESSION\)/);
    for (const p of [90, 99]) expect(out.stdout).toMatch(new RegExp(`TTFT p${p} \\(ms\\)\\s+[\\d.]+\\s+[\\d.]+\\s+\\+`));
    expect(out.stdout).toMatch(/TPOT p50 \(ms\).*no significant change/);
    expect(out.stderr).toMatch(/significant regression beyond --fail-on-regression: .*TTFT p50/);
    const md = readFileSync(join(tmp, 'pr.md'), 'utf8');
    expect(md).toMatch(/^\| TTFT p50 \(ms\) \|.*\| \*\*worse \(REGRESSION\)\*\* \|$/m);
    // Without the gate the regression is reported but the exit code stays 0.
    expect((await runCli(['compare', a, slow])).code).toBe(0);
  });

  it('flags a changed load shape and gives no verdict unless --force', async () => {
    const fast = await simRun('rate16', [...LOAD.map((x) => (x === '8' ? '16' : x)), '--seed', '1']);
    const out = await runCli(['compare', a, fast, '--fail-on-regression', '5%']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/load\.request_rate\s+8\s+16\s+DIFFERS/);
    expect(out.stdout).toMatch(/Load shape: DIFFERS/);
    expect(out.stdout).toMatch(/no verdict: the load shapes differ/);
    expect(out.stdout).not.toMatch(/\bworse\b|\bbetter\b/);
    const forced = await runCli(['compare', a, fast, '--force']);
    expect(forced.stdout).toMatch(/Verdict:/);
    // Twice the arrival rate: twice the request throughput, beyond noise.
    expect(forced.stdout).toMatch(/Requests\/s .* better/);
  });

  it('duration-bound runs of one spec, two seeds: the request count each produced is an outcome, not a setting', async () => {
    const DUR = ['--request-rate', '8', '--duration', '40s', '--random-input-len', '512', '--random-output-len', '64', '--random-range-ratio', '0.5'];
    const d1 = await simRun('dur1', [...DUR, '--seed', '1']);
    const d2 = await simRun('dur2', [...DUR, '--seed', '2']);
    const n = (dir: string) => (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { load: { num_prompts: number } }).load.num_prompts;
    expect(n(d1)).not.toBe(n(d2));
    const out = await runCli(['compare', d1, d2, '--fail-on-regression', '5%']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`requests sent \\(outcome\\)\\s+${n(d1)}\\s+${n(d2)}\\s+differs`));
    expect(out.stdout).toMatch(/seed \(outcome\)\s+1\s+2\s+differs/);
    expect(out.stdout).toMatch(/load\.duration_ms\s+40000\s+40000\s+same/);
    expect(out.stdout).not.toMatch(/load\.num_prompts/);
    expect(out.stdout).toMatch(/Load shape: the same/);
    expect(out.stdout).toMatch(/Verdict: no significant change/);
    expect(out.stdout).toMatch(/^B vs A: no significant change in any figure; open loop below saturation \(8 req\/s offered\): throughput follows the offered rate, so it is not judged as speed$/m);
    // H100 → A100, the same spec: latencies regress; the headline names them and agrees with the table.
    // The GPU is what is under test (--vary gpu): without it the differing server refuses a verdict.
    const slower = await simRun('dur-a100', [...DUR, '--seed', '1', '--hardware', 'a100']);
    const hw = await runCli(['compare', d1, slower, '--fail-on-regression', '5%', '--vary', 'gpu']);
    expect(hw.code).toBe(EXIT_CODES.REGRESSION);
    expect(hw.stdout).toMatch(/hardware/);
    expect(hw.stdout).toMatch(/Load shape: the same/);
    const pair = (JSON.parse((await runCli(['compare', d1, slower, '--json', '--vary', 'gpu'])).stdout) as { pairs: Array<{ headline: { speed: string; worse: string[]; better: string[]; regime: string; biggest: { figure: string; delta: number } }; figures: Array<{ figure: { label: string }; verdict: string; delta: number | null }> }> }).pairs[0]!;
    const worse = pair.figures.filter((f) => f.verdict === 'worse').map((f) => f.figure.label);
    expect(worse.length).toBeGreaterThan(0);
    expect(pair.headline.worse).toEqual(worse);
    expect(pair.headline.better).toEqual(pair.figures.filter((f) => f.verdict === 'better').map((f) => f.figure.label));
    expect(pair.headline.speed).toBe('slower');
    expect(pair.headline.regime).toBe('open loop below saturation');
    const top = pair.figures.filter((f) => f.verdict === 'worse' || f.verdict === 'better').sort((x, y) => Math.abs(y.delta!) - Math.abs(x.delta!))[0]!;
    expect(pair.headline.biggest.figure).toBe(top.figure.label);
    expect(hw.stdout).toMatch(/^B vs A: slower — worse: TTFT p50, .*; biggest change: \S+ p\d+ \+\d+\.\d%; open loop below saturation/m);
    expect(hw.stdout).not.toMatch(/faster/);
    // Count-bound runs that asked for different counts do differ.
    const more = await simRun('n400', [...LOAD.map((x) => (x === '300' ? '400' : x)), '--seed', '1']);
    const counted = await runCli(['compare', a, more]);
    expect(counted.stdout).toMatch(/load\.num_prompts\s+300\s+400\s+DIFFERS/);
  });

  it('flags different input length distributions with the KS test', async () => {
    const longer = await simRun('long', [...LOAD.map((x) => (x === '512' ? '768' : x)), '--seed', '1']);
    const out = await runCli(['compare', a, longer]);
    expect(out.stdout).toMatch(/input lengths \(KS test\).*p=.* DIFFERS/);
    expect(out.stdout).toMatch(/workload\.input_len/);
  });

  it('reads vLLM result files: figures only, no intervals, said so', async () => {
    const va = join(tmp, 'a-vllm.json');
    const vb = join(tmp, 'b-vllm.json');
    expect((await runCli(['analyze', a, '--vllm-json', va])).code).toBe(0);
    expect((await runCli(['analyze', b, '--vllm-json', vb])).code).toBe(0);
    const out = await runCli(['compare', va, vb]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/figures only, no confidence intervals and no verdicts/);
    expect(out.stdout).toMatch(/TTFT p99 \(ms\)/);
  });

  it('sweep directories: stage against stage, paired by load', async () => {
    const sweepArgs = (seed: string, name: string) => ['sim', 'sweep', '--request-rates', '5,10', '--duration', '15s', '--random-input-len', '512', '--random-output-len', '64', '--seed', seed, '--result-dir', join(tmp, 'sweeps'), '--name', name];
    expect((await runCli(sweepArgs('1', 'sa'))).code).toBe(0);
    expect((await runCli(sweepArgs('2', 'sb'))).code).toBe(0);
    const dirs = readdirSync(join(tmp, 'sweeps')).filter((d) => /-s[ab]$/.test(d)).sort().map((d) => join(tmp, 'sweeps', d));
    const out = await runCli(['compare', ...dirs]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/\[stage 0: 5 req\/s\] {2}vs {2}B = .*\[stage 0: 5 req\/s\]/);
    expect(out.stdout).toMatch(/\[stage 1: 10 req\/s\]/);
    expect(out.stdout.match(/Verdict: no significant change/g)).toHaveLength(2);
    const mixed = await runCli(['compare', dirs[0]!, a]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/a sweep directory compares with other sweep directories/);
  });

  it('bad input: the same run twice, a missing directory, another schema — one line, exit 2', async () => {
    const same = await runCli(['compare', a, `${a}/`]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/are the same run/);
    const missing = await runCli(['compare', a, join(tmp, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such run directory/);
    const other = join(tmp, 'other');
    cpSync(a, other, { recursive: true });
    writeFileSync(join(other, 'result.json'), JSON.stringify({ schema: 'infermeter.result/99' }));
    const bad = await runCli(['compare', a, other]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/schema "infermeter.result\/99"/);
  });
});
