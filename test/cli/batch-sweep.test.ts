/**
 * `sim sweep --batch-sizes`: one stage per batch size at one fixed load, in virtual time. The
 * simulated engine charges a batch one prefill of all its tokens, so at one request in flight
 * inputs/s rises with the batch size while the batch's tokens fit the step's token budget
 * (--max-num-batched-tokens, 8192 on an H100) and falls past it, where a batch takes several
 * steps. Ground truth of the simulator in virtual time, never wall-clock; the refusals; sweep.json
 * through `analyze`; the HTML report's batch table.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// 32-token inputs, one request in flight: 128 inputs are 4,096 tokens (one step), 512 are 16,384 (past the 8,192 budget).
const INPUT_LEN = 32;
const SIZES = [1, 8, 32, 128, 512];
const COMMON = ['sim', 'sweep', '--endpoint-type', 'embeddings', '--max-concurrency', '1', '--num-prompts', '40', '--random-input-len', String(INPUT_LEN), '--seed', '3'];

async function sweep(args: string[]): Promise<{ code: number; stdout: string; dir: string; saved: SweepResult }> {
  const results = tempDir('batch-sweep');
  dirs.push(results);
  const out = await runCli([...COMMON, '--result-dir', results, ...args]);
  expect([EXIT_CODES.OK, EXIT_CODES.SLO_FAILED], out.stderr).toContain(out.code);
  const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
  return { code: out.code, stdout: out.stdout, dir, saved: JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult };
}

describe('sim sweep --batch-sizes', () => {
  it('one stage per batch size at one load: inputs/s rises with the batch until the token budget, then falls; the best and the largest meeting the SLO are named', async () => {
    const first = await sweep(['--batch-sizes', SIZES.join(','), '--no-report']);
    const s = first.saved;
    expect([s.schema, s.sweep.mode, s.sweep.dimension]).toEqual(['infermeter.sweep/3', 'list', 'batch_size']);
    expect(s.stages.map((x) => x.batch_size)).toEqual(SIZES);
    for (const [i, st] of s.stages.entries()) {
      // Every stage at the same load: all at once, at most one in flight.
      expect(st.load).toEqual({ kind: 'rate', rate: 'inf' });
      const b = st.metrics.batch!;
      // Every request carried the stage's batch: 40 requests × batch inputs of exactly 32 tokens.
      expect([st.metrics.requests.ok, b.inputs_total, b.batch_size_max, b.input_unit]).toEqual([40, 40 * SIZES[i]!, SIZES[i], 'inputs']);
      expect(b.input_tokens_per_s!).toBeCloseTo(b.inputs_per_s! * INPUT_LEN, 6);
      expect(b.inputs_per_s!).toBeCloseTo(st.metrics.throughput.request_per_s! * SIZES[i]!, 6);
    }
    const perS = s.stages.map((x) => x.metrics.batch!.inputs_per_s!);
    // Rising while the batch fits one step (1 … 128), lower past the budget (512).
    for (let i = 1; i <= 3; i++) expect(perS[i]!).toBeGreaterThan(perS[i - 1]!);
    expect(perS[4]!).toBeLessThan(perS[3]!);
    // A bigger batch is a longer request.
    const p99 = s.stages.map((x) => x.metrics.latency.e2el_ms.p99!);
    for (let i = 1; i < p99.length; i++) expect(p99[i]!).toBeGreaterThan(p99[i - 1]!);
    expect(s.analysis.batch!.best_inputs_per_s).toMatchObject({ index: 3, batch_size: 128 });
    expect([s.analysis.saturation, s.analysis.knee, s.analysis.degradation]).toEqual([null, null, null]);
    expect(s.analysis.batch!.largest_meeting_slos).toBeNull();
    expect(first.stdout).toMatch(/^Most inputs\/s: batch size 128 \(stage 4\), [\d.]+ inputs\/s$/m);
    expect(first.stdout).toMatch(/^Saturation, knee, degradation: not run on a batch-size sweep/m);
    expect(first.stdout).not.toMatch(/^Knee:/m);

    // An SLO between the third and fourth stages' p99: 32 is the largest batch meeting it; the sweep passes (exit 0).
    const bound = ((p99[2]! + p99[3]!) / 2).toFixed(3);
    const judged = await sweep(['--batch-sizes', SIZES.join(','), '--slo', `p99(e2el) < ${bound}ms`]);
    expect(judged.code).toBe(EXIT_CODES.OK);
    expect(judged.saved.stages.map((x) => x.slos_pass)).toEqual([true, true, true, false, false]);
    expect(judged.saved.analysis.batch!.largest_meeting_slos).toEqual({ index: 2, batch_size: 32 });
    expect(judged.saved.pass).toBe(true);
    expect(judged.stdout).toContain(`Largest batch size meeting every SLO (p99(e2el) < ${bound}ms): 32 (stage 3)`);
    // The report: the stage table by batch size and the batch-size charts, no load curves.
    const html = readFileSync(join(judged.dir, 'report.html'), 'utf8');
    expect(html).toContain('Batch-size sweep');
    expect(html).toContain('Largest batch size meeting every SLO: 32 (stage 3).');
    expect(html).toContain('sweep-batch-inputs');
    expect(html).not.toContain('sweep-ttft');

    // Round trip through analyze: the same stages and answers from records.jsonl; a tighter SLO re-judges them.
    const again = await runCli(['analyze', judged.dir, '--json']);
    expect(again.code, again.stderr).toBe(EXIT_CODES.OK);
    const re = JSON.parse(again.stdout) as SweepResult;
    expect(re.stages.map((x) => [x.batch_size, x.metrics.requests.ok, x.metrics.batch!.inputs_total])).toEqual(judged.saved.stages.map((x) => [x.batch_size, x.metrics.requests.ok, x.metrics.batch!.inputs_total]));
    expect(re.analysis.batch!.largest_meeting_slos).toEqual({ index: 2, batch_size: 32 });
    expect(re.analysis.batch!.best_inputs_per_s!.batch_size).toBe(128);
    const tight = await runCli(['analyze', judged.dir, '--json', '--slo', `p99(e2el) < ${((p99[0]! + p99[1]!) / 2).toFixed(3)}ms`]);
    expect(tight.code).toBe(EXIT_CODES.OK);
    expect((JSON.parse(tight.stdout) as SweepResult).analysis.batch!.largest_meeting_slos).toEqual({ index: 0, batch_size: 1 });
    const none = await runCli(['analyze', judged.dir, '--json', '--slo', 'p99(e2el) < 0.001ms']);
    expect(none.code).toBe(EXIT_CODES.SLO_FAILED);
    expect((JSON.parse(none.stdout) as SweepResult).analysis.batch!.largest_meeting_slos).toBeNull();
  }, 120_000);

  it('rerank: the stages count documents', async () => {
    const out = await runCli(['sim', 'sweep', '--endpoint-type', 'rerank', '--batch-sizes', '1,4', '--max-concurrency', '2', '--num-prompts', '10', '--random-input-len', '32', '--no-save']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.OK);
    expect(out.stdout).toContain('Batch size = documents per request');
    expect(out.stdout).toMatch(/^Most documents\/s: batch size 4 \(stage 2\)/m);
  }, 60_000);

  it('over HTTP against the built-in simulator: every stage at the load given, not the quickstart rate', async () => {
    const out = await runCli(['sweep', '--endpoint-type', 'embeddings', '--batch-sizes', '1,2', '--max-concurrency', '2', '--num-prompts', '6', '--random-input-len', '16', '--no-save', '--json', '--workers', '1']);
    // A busy machine may make a stage invalid (exit 5); the load is the point here.
    expect([EXIT_CODES.OK, EXIT_CODES.INVALID_RUN], out.stderr).toContain(out.code);
    const r = JSON.parse(out.stdout) as SweepResult;
    expect(r.stages.map((x) => [x.batch_size, x.load, x.metrics.batch!.inputs_total])).toEqual([
      [1, { kind: 'rate', rate: 'inf' }, 6],
      [2, { kind: 'rate', rate: 'inf' }, 12],
    ]);
    expect((r.load as { max_concurrency?: unknown }).max_concurrency).toBe(2);
  }, 60_000);

  it('refuses in one line, exit 2, before any stage', async () => {
    const refused = async (args: string[]) => {
      const out = await runCli(['sim', 'sweep', '--num-prompts', '10', '--no-save', ...args]);
      expect(out.code).toBe(EXIT_CODES.USAGE);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stdout).toBe('');
      return out.stderr.trim();
    };
    expect(await refused(['--endpoint-type', 'chat', '--batch-sizes', '1,8', '--max-concurrency', '2'])).toBe('error: --batch-sizes: only embeddings, rerank and score requests carry a batch of inputs; the chat endpoint takes one prompt per request');
    expect(await refused(['--batch-sizes', '1', '--max-concurrency', '2'])).toMatch(/the completions endpoint takes one prompt per request$/);
    expect(await refused(['--endpoint-type', 'embeddings', '--batch-sizes', '1,8', '--concurrencies', '1,2'])).toMatch(/^error: --concurrencies and --batch-sizes: a batch-size sweep runs every stage at one load/);
    expect(await refused(['--endpoint-type', 'embeddings', '--batch-sizes', '1,8', '--request-rates', '1,2', '--max-concurrency', '2'])).toMatch(/^error: --request-rates and --batch-sizes: /);
    for (const bad of ['0,8', '1,2.5', '-4', '1,x', '']) expect(await refused(['--endpoint-type', 'embeddings', `--batch-sizes=${bad}`, '--max-concurrency', '2'])).toMatch(/^error: --batch-sizes: /);
    expect(await refused(['--endpoint-type', 'embeddings', '--batch-sizes', '8,1', '--max-concurrency', '2'])).toBe('error: --batch-sizes: batch sizes must increase, but 1 follows 8');
    expect(await refused(['--endpoint-type', 'embeddings', '--batch-sizes', '1,8'])).toMatch(/^error: --batch-sizes: give the load every stage runs at with --max-concurrency C/);
    expect(await refused(['--endpoint-type', 'embeddings', '--batch-sizes', '1,8', '--batch-size', '4', '--max-concurrency', '2'])).toMatch(/^error: --batch-size 4 and --batch-sizes: /);
  }, 60_000);
});
