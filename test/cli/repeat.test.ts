import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, combineOutcomes, exitCodeFor } from '../../src/errors/exit-codes.js';
import { rowFromRunDir } from '../../src/history/history-row.js';
import type { RepeatsFile } from '../../src/report/repeats-json.js';
import { assessBand } from '../../src/history/history-band.js';
import { runCli } from '../helpers/cli.js';
import { plantTtftRegression } from '../helpers/planted-runs.js';

const tmp = mkdtempSync(join(tmpdir(), 'infermeter-repeat-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The compare tests' load: 300 requests at 8 req/s, 512±50% → 64±50% tokens.
const LOAD = ['--request-rate', '8', '--num-prompts', '300', '--random-input-len', '512', '--random-output-len', '64', '--random-range-ratio', '0.5'];

async function repeatRun(name: string, args: string[]): Promise<string> {
  const out = await runCli(['sim', 'run', ...args, '--result-dir', tmp, '--name', name]);
  expect(out.code, out.stderr).toBe(0);
  return join(tmp, readdirSync(tmp).find((d) => d.endsWith(`-${name}`))!);
}

const readRepeats = (dir: string): RepeatsFile => JSON.parse(readFileSync(join(dir, 'repeats.json'), 'utf8')) as RepeatsFile;

/** A copy of a repeat directory whose every TTFT is 20% longer, run by run. */
function plantInRepeat(src: string, dest: string): void {
  cpSync(src, dest, { recursive: true });
  for (const r of readRepeats(src).runs) plantTtftRegression(join(src, r.dir), join(dest, r.dir));
}

let a: string;
beforeAll(async () => {
  a = await repeatRun('a', [...LOAD, '--seed', '1', '--repeat', '3']);
});

describe('sim run --repeat N', () => {
  it('keeps every run directory and writes repeats.json: seeds 1, 2, 3, one spec hash, figures over the runs', () => {
    const file = readRepeats(a);
    expect(file).toMatchObject({ schema: 'infermeter.repeats/1', driver: 'virtual', repeats_asked: 3, runs_in_figures: 3 });
    expect(file.runs.map((r) => [r.dir, r.seed, r.valid])).toEqual([['repeat-1', 1, true], ['repeat-2', 2, true], ['repeat-3', 3, true]]);
    const results = file.runs.map((r) => JSON.parse(readFileSync(join(a, r.dir, 'result.json'), 'utf8')) as { run: { id: string }; metrics: { latency: { ttft_ms: { p99: number } } } });
    expect(results.map((r) => r.run.id)).toEqual(file.runs.map((r) => `${file.id}.${r.dir}`));
    // the figure over runs by hand from the three results
    const p99 = results.map((r) => r.metrics.latency.ttft_ms.p99);
    const mean = (p99[0]! + p99[1]! + p99[2]!) / 3;
    const sd = Math.sqrt(p99.reduce((s, x) => s + (x - mean) ** 2, 0) / 2);
    expect(file.figures.ttft_p99).toMatchObject({ n: 3, values: p99 });
    expect(file.figures.ttft_p99!.mean).toBeCloseTo(mean, 9);
    expect(file.figures.ttft_p99!.sd).toBeCloseTo(sd, 9);
    // t(0.975, 2) = 4.302653
    expect(file.figures.ttft_p99!.ci![1]).toBeCloseTo(mean + (4.302653 * sd) / Math.sqrt(3), 4);
    // the spec hash is the history's, the same for every repeat
    const hashes = file.runs.map((r) => rowFromRunDir(dirname(a), join(a, r.dir)).spec_hash);
    expect(new Set(hashes)).toEqual(new Set([file.spec_hash]));
  });

  it('--repeat 0 is one line, exit 2, and nothing is written', async () => {
    const before = readdirSync(tmp).length;
    const out = await runCli(['sim', 'run', ...LOAD, '--repeat', '0', '--result-dir', tmp, '--name', 'zero']);
    expect(out.code).toBe(EXIT_CODES.USAGE);
    expect(out.stderr.trim()).toBe('error: --repeat: expected a whole number of runs, at least 1, got "0"');
    expect(readdirSync(tmp).length).toBe(before);
  });

  it('the exit code is the worst of the runs, through the one mapping', async () => {
    const out = await runCli(['sim', 'run', ...LOAD, '--num-prompts', '40', '--repeat', '2', '--slo', 'p99(ttft) < 1ms', '--result-dir', tmp, '--name', 'slo']);
    expect(out.code).toBe(EXIT_CODES.SLO_FAILED);
    expect(out.stdout).toMatch(/repeat-1\s+0\s+valid, an SLO failed/);
    const ok = { stoppedBy: null, valid: true, allowInvalid: false, gatesPass: true };
    expect(exitCodeFor(combineOutcomes([ok, { ...ok, gatesPass: false }, { ...ok, valid: false }]))).toBe(EXIT_CODES.INVALID_RUN);
    expect(exitCodeFor(combineOutcomes([ok, { ...ok, valid: false, allowInvalid: true }]))).toBe(EXIT_CODES.OK);
    expect(exitCodeFor(combineOutcomes([ok, { ...ok, stoppedBy: { reason: 'SIGTERM' } }]))).toBe(EXIT_CODES.SIGTERM);
  });

  it('run --repeat 2 against the built-in simulator: each run its own prompt salt', async () => {
    // --allow-invalid: on a busy machine the client may fall behind 50 req/s; the salts are what is checked here.
    const out = await runCli(['run', '--num-prompts', '10', '--request-rate', '50', '--random-input-len', '64', '--random-output-len', '8', '--repeat', '2', '--prompt-salt', 'pr', '--no-capacity-check', '--allow-invalid', '--result-dir', tmp, '--name', 'http']);
    expect(out.code, out.stderr).toBe(0);
    const dir = join(tmp, readdirSync(tmp).find((d) => d.endsWith('-http'))!);
    expect(readRepeats(dir).runs.map((r) => [r.seed, r.prompt_salt])).toEqual([[0, 'pr-r1'], [1, 'pr-r2']]);
    expect(existsSync(join(dir, 'repeat-2', 'records.jsonl'))).toBe(true);
  });
});

describe('grouped compare', () => {
  it('a planted 20% p99 TTFT regression: caught by 3 + 3 runs of 300 requests, not by one pair of them', async () => {
    // B: the same command (--repeat 3 --seed 1) against a server 20% slower to its first token.
    // The comparison does not pair run k of A with run k of B: each group's noise is its own.
    const slow = join(tmp, 'slow');
    plantInRepeat(a, slow);
    const grouped = await runCli(['compare', a, slow, '--fail-on-regression', '5%']);
    expect(grouped.code, grouped.stdout).toBe(EXIT_CODES.REGRESSION);
    expect(grouped.stdout).toMatch(/TTFT p99 \(ms\).*\+20\.0%\s+\[\+\d+\.\d%, \+\d+\.\d%\].*worse \(REGRESSION\)/);
    expect(grouped.stdout).toMatch(/Intervals: t over runs — unit: the run \(3 \+ 3 runs\)/);
    const pair = await runCli(['compare', join(a, 'repeat-1'), join(slow, 'repeat-1'), '--fail-on-regression', '5%']);
    expect(pair.stdout).toMatch(/TTFT p99 \(ms\).*\+20\.0%.*no significant change/);
    // the same groups named run by run, `--` between them
    const runs = (d: string) => readRepeats(a).runs.map((r) => join(d, r.dir));
    const listed = await runCli(['compare', ...runs(a), '--', ...runs(slow), '--json']);
    const json = JSON.parse(listed.stdout) as { pairs: Array<{ figures: Array<{ figure: { id: string }; verdict: string }> }> };
    expect(json.pairs[0]!.figures.find((f) => f.figure.id === 'ttft_p99')!.verdict).toBe('worse');
  });

  it('bad groups: one run, two specs, a repeat directory beside a single run: one line, exit 2', async () => {
    const one = await runCli(['compare', join(a, 'repeat-1'), '--', join(a, 'repeat-2'), join(a, 'repeat-3')]);
    expect(one.code).toBe(EXIT_CODES.USAGE);
    expect(one.stderr.trim()).toMatch(/^error: compare: group A \(.*repeat-1\) has 1 run; a group needs at least 2 \(its between-run spread\)$/);
    const other = await repeatRun('rate16', [...LOAD.map((x) => (x === '8' ? '16' : x)), '--seed', '1', '--repeat', '2']);
    const mixed = await runCli(['compare', join(a, 'repeat-1'), join(other, 'repeat-1'), '--', join(a, 'repeat-2'), join(a, 'repeat-3')]);
    expect(mixed.code).toBe(EXIT_CODES.USAGE);
    expect(mixed.stderr.trim()).toMatch(/^error: compare: group A mixes specs: .*repeat-1 is spec [0-9a-f]{16}, .*repeat-1 is spec [0-9a-f]{16}; a group repeats one spec/);
    const html = await runCli(['compare', a, other, '--html', join(tmp, 'x.html')]);
    expect(html.code).toBe(EXIT_CODES.USAGE);
    expect(html.stderr.trim()).toBe('error: --html: not drawn for a grouped compare; the text, --json and --markdown are');
    const beside = await runCli(['compare', a, join(other, 'repeat-1')]);
    expect(beside.code).toBe(EXIT_CODES.USAGE);
    expect(beside.stderr).toMatch(/a repeat directory compares with another repeat directory/);
  });
});

describe('noise band from the history', () => {
  it('assessBand by hand: the newest comparable run against the band of those before it; fewer than 3 is one line', () => {
    const row = (run_id: string, value: number | null, valid: boolean | null = true) => ({ run_id, started_at: run_id, value, valid, interrupted: false, reasons: [] });
    // past [10, 11, 12] (an invalid 50 left out): 11 ± t(0.975, 2)·1·√(4/3) = 11 ± 4.968275 → [6.03, 15.97]
    const rows = [row('r1', 10), row('bad', 50, false), row('r2', 11), row('r3', 12), row('r4', 16)];
    const b = assessBand('ttft_p99_ms', 'h', rows, 0.95);
    expect(b).toMatchObject({ run_id: 'r4', past: ['r1', 'r2', 'r3'], verdict: 'worse', regression: true });
    expect(b.band.band[1]).toBeCloseTo(11 + 4.968275, 5);
    expect(assessBand('ttft_p99_ms', 'h', [...rows.slice(0, 4), row('r4', 15.9)], 0.95).verdict).toBe('within');
    expect(assessBand('request_throughput', 'h', rows, 0.95).verdict).toBe('better');
    expect(() => assessBand('ttft_p99_ms', 'h', rows.slice(0, 4), 0.95)).toThrow('the noise band needs at least 3 earlier comparable runs (valid, not interrupted) of spec h; the history has 2');
  });

  it('trend --band and compare --against-history over a repeat: how many runs the band rests on; too few exit 2', async () => {
    const results = mkdtempSync(join(tmpdir(), 'infermeter-band-'));
    try {
      const LOAD40 = [...LOAD.map((x) => (x === '300' ? '60' : x))];
      const early = await runCli(['sim', 'run', ...LOAD40, '--repeat', '3', '--result-dir', results, '--name', 'h']);
      expect(early.code, early.stderr).toBe(0);
      const few = await runCli(['trend', 'ttft_p99', '--band', '--results-dir', results]);
      expect(few.code).toBe(EXIT_CODES.USAGE);
      expect(few.stderr.trim()).toMatch(/^error: the noise band needs at least 3 earlier comparable runs \(valid, not interrupted\) of spec [0-9a-f]{16}; the history has 2$/);
      const more = await runCli(['sim', 'run', ...LOAD40, '--seed', '3', '--repeat', '2', '--result-dir', results, '--name', 'h2']);
      expect(more.code, more.stderr).toBe(0);
      const t = await runCli(['trend', 'ttft_p99', '--band', '--results-dir', results]);
      expect(t.code, t.stderr).toBe(0);
      expect(t.stdout).toMatch(/ttft_p99_ms [\d.]+ \([+-][\d.]+% against the mean [\d.]+\): within the noise band \[[\d.]+, [\d.]+\] \(95% prediction interval from 4 earlier runs, sd [\d.]+\)/);
      // The newest run with its TTFT p99 tripled (result.json, which the history reads) is outside the band.
      const newest = join(results, readdirSync(results).find((d) => d.endsWith('-h2'))!, 'repeat-2');
      const far = join(tmp, 'far');
      cpSync(newest, far, { recursive: true });
      const result = JSON.parse(readFileSync(join(far, 'result.json'), 'utf8')) as { metrics: { latency: { ttft_ms: { p99: number } } } };
      result.metrics.latency.ttft_ms.p99 *= 3;
      writeFileSync(join(far, 'result.json'), JSON.stringify(result));
      const c = await runCli(['compare', far, '--against-history', '--results-dir', results, '--fail-on-regression', '5%']);
      expect(c.code, c.stderr).toBe(EXIT_CODES.REGRESSION);
      expect(c.stdout).toMatch(/against the history: 4 earlier runs of spec/);
      expect(c.stdout).toMatch(/^TTFT p99 \(ms\) .*WORSE than the noise band .* — REGRESSION$/m);
      expect(c.stdout).toMatch(/^TTFT p50 \(ms\) .*within the noise band/m);
      const one = await runCli(['compare', far, newest, '--against-history', '--results-dir', results]);
      expect(one.code).toBe(EXIT_CODES.USAGE);
    } finally {
      rmSync(results, { recursive: true, force: true });
    }
  });
});
