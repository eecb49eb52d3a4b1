/**
 * The "done when": `run --dataset-name eval` against the built-in simulator prints speed
 * and quality together, with the accuracy the simulator was set to within sampling error; the
 * records, result.json, the HTML report and the history carry the same figures; a second run at a
 * lower accuracy is caught by compare. Over real HTTP; no wall-clock assertion (speed figures
 * are only checked to be printed, not their values).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { expectCompleted, runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const N = 200;
const EVAL = ['run', '--dataset-name', 'eval', '--num-prompts', String(N), '--seed', '5', '--concurrency', '8', '--sim-prefill-ms', '1', '--sim-per-token-ms', '0.2', '--allow-invalid'];

interface Rec {
  id: number;
  phase: string;
  status: string;
  output_text: string | null;
  quality?: { kind: string; pass: boolean; outcome: string; reason: string };
}
interface Quality {
  checked: number;
  answered: number;
  accuracy: { k: number; n: number; value: number; ci95: [number, number] };
  hallucination: { rate: { k: number; n: number } } | null;
  refusal: { rate: { n: number }; over_refusal: { n: number } } | null;
  success: { count: number; per_s: number };
}

let results: string;
function runDirOf(name: string): string {
  return join(results, readdirSync(results).find((d) => d.endsWith(`-${name}`))!);
}
function records(dir: string): Rec[] {
  return readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Rec);
}

let high: CliResult;
let low: CliResult;
beforeAll(async () => {
  results = tempDir('run-eval-quality');
  high = await runCli([...EVAL, '--sim-accuracy', '0.9', '--result-dir', results, '--name', 'high']);
  expectCompleted(high);
  low = await runCli([...EVAL, '--sim-accuracy', '0.6', '--result-dir', results, '--name', 'low']);
  expectCompleted(low);
}, 240_000);

describe('run --dataset-name eval against the built-in simulator', () => {
  it('prints speed and quality together', () => {
    expect(high.stdout).toMatch(/Output token throughput +tok\/s/);
    expect(high.stdout).toMatch(/E2E latency \(ms\)/);
    expect(high.stdout).toMatch(new RegExp(`Quality: ${N} checked requests, ${N} answered`));
    expect(high.stdout).toMatch(/Accuracy \(all answered\)\s+\d+\.\d% \[\d+\.\d–\d+\.\d%\] \(\d+\/200\)/);
    expect(high.stdout).toMatch(/Successful tasks \(ok, correct, no SLOs given\): \d+ of 200/);
  });

  it('measures the accuracy the simulator was set to, within sampling error', () => {
    for (const [name, p] of [['high', 0.9], ['low', 0.6]] as const) {
      const dir = runDirOf(name);
      const q = (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { quality: Quality }).quality;
      const recs = records(dir).filter((r) => r.phase === 'measure');
      expect(q.checked).toBe(N);
      expect(recs.every((r) => r.quality !== undefined && r.output_text !== null)).toBe(true);
      // Unknowable closed-book questions are answered with their abstention whatever the accuracy
      // (no --sim-hallucination-rate): they pass. Of the answerable rest, a share p pass.
      const abstained = recs.filter((r) => r.quality!.outcome === 'abstained').length;
      const answerable = q.answered - abstained;
      const passedAnswerable = q.accuracy.k - abstained;
      const sigma = Math.sqrt((p * (1 - p)) / answerable);
      expect(Math.abs(passedAnswerable / answerable - p)).toBeLessThan(3.5 * sigma);
      // The overall interval holds the expected overall share.
      const expected = (abstained + answerable * p) / q.answered;
      expect(q.accuracy.ci95[0]).toBeLessThan(expected);
      expect(q.accuracy.ci95[1]).toBeGreaterThan(expected);
      // No hallucination rate was set: no closed-book answer is a hallucination of an unknowable.
      expect(q.hallucination).not.toBeNull();
      expect(q.refusal).not.toBeNull();
      expect(q.success.count).toBe(q.accuracy.k);
    }
  });

  it('the HTML report and the history carry the quality figures', async () => {
    const dir = runDirOf('high');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('Answer quality');
    expect(html).toMatch(/Accuracy \(all answered\)/);
    const rows = JSON.parse((await runCli(['history', '--results-dir', results, '--json'])).stdout) as Array<{ name: string; accuracy: number | null; successful_per_s: number | null }>;
    const q = (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { quality: Quality }).quality;
    const row = rows.find((r) => r.name === 'high')!;
    expect(row.accuracy).toBeCloseTo(q.accuracy.value, 12);
    expect(row.successful_per_s).toBeCloseTo(q.success.per_s, 9);
  });

  it('compare catches the lower-accuracy run, paired over the same prompts, and --fail-on-quality-drop exits 4', async () => {
    const out = await runCli(['compare', runDirOf('high'), runDirOf('low'), '--fail-on-quality-drop', '1%', '--resamples', '200']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.REGRESSION);
    expect(out.stdout).toMatch(/B vs A: .*accuracy −\d+\.\d pts \(significant\)/);
    expect(out.stdout).toMatch(/paired over 200 prompts/);
    expect(out.stdout).toMatch(/verdict: worse \(REGRESSION beyond --fail-on-quality-drop\)/);
    expect(out.stderr).toMatch(/significant accuracy drop beyond --fail-on-quality-drop/);
  });
});

describe('run --workers 0: checks are judged after the load, on the same thread', () => {
  it('every checked record still gets its outcome', async () => {
    const out = await runCli(['run', '--dataset-name', 'eval', '--num-prompts', '20', '--workers', '0', '--sim-prefill-ms', '0', '--sim-per-token-ms', '0', '--result-dir', results, '--name', 'w0', '--allow-invalid', '--no-report']);
    expectCompleted(out);
    const recs = records(runDirOf('w0')).filter((r) => r.phase === 'measure');
    expect(recs).toHaveLength(20);
    expect(recs.every((r) => r.quality !== undefined)).toBe(true);
    // --sim-accuracy defaults to 1: the reference answers pass.
    expect(recs.filter((r) => !r.quality!.pass).map((r) => r.quality!.reason)).toEqual([]);
  });
});
