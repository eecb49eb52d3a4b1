/**
 * compare judges answer quality beside speed (issue 15): a planted accuracy drop is caught while
 * the candidate is faster, paired over the same prompts, and --fail-on-quality-drop gates on it.
 * The runs are `sim run`s (virtual time: deterministic speed) of the same seeded workload on two
 * GPUs; their records are then given answer-check outcomes by hand, as a run with checks writes
 * them, so the expected figures are known exactly.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const LOAD = ['--concurrency', '16', '--num-prompts', '200', '--random-input-len', '256', '--random-output-len', '32', '--seed', '3'];
let tmp: string;

async function simRun(name: string, args: string[]): Promise<string> {
  const out = await runCli(['sim', 'run', ...LOAD, ...args, '--result-dir', tmp, '--name', name, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return join(tmp, readdirSync(tmp).find((d) => d.endsWith(`-${name}`))!);
}

/**
 * Gives every ok measure record an exact-check outcome: `pass(id)` decides it, and the answer
 * text is `answer <id>` (or, where `differs(id)`, `answer <id> but longer`).
 */
function plantQuality(dir: string, pass: (id: number) => boolean, differs: (id: number) => boolean = () => false): void {
  const path = join(dir, 'records.jsonl');
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const out = lines.map((line) => {
    const r = JSON.parse(line) as { id: number; status: string; phase: string; output_text: string | null; quality?: unknown };
    if (r.status !== 'ok' || r.phase !== 'measure') return line;
    const ok = pass(r.id);
    r.quality = { kind: 'exact', pass: ok, outcome: ok ? 'correct' : 'wrong', reason: ok ? 'matches' : 'expected another answer' };
    r.output_text = differs(r.id) ? `answer ${r.id} but longer` : `answer ${r.id}`;
    return JSON.stringify(r);
  });
  writeFileSync(path, `${out.join('\n')}\n`);
}

let slow: string;
let fast: string;
beforeAll(async () => {
  tmp = tempDir('compare-quality');
  slow = await simRun('a100', ['--hardware', 'a100']);
  fast = await simRun('h100', ['--hardware', 'h100']);
  // A: 190 of 200 right (id % 20 = 0 wrong). B: those, and 10 more (id % 20 = 10) wrong: −5 points.
  plantQuality(slow, (id) => id % 20 !== 0);
  plantQuality(fast, (id) => id % 20 !== 0 && id % 20 !== 10, (id) => id % 4 === 1);
});

describe('compare: quality beside speed', () => {
  it('catches the planted accuracy drop of a faster run, paired over the same prompts', async () => {
    const out = await runCli(['compare', slow, fast, '--vary', 'gpu']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/B vs A: faster — better: .*Output tokens\/s.*; biggest change: .*; closed loop: throughput is a result, judged as speed; accuracy −5\.0 pts \(significant\)/);
    expect(out.stdout).toMatch(/Accuracy: A 95\.0% \(190\/200\), B 90\.0% \(180\/200\)/);
    expect(out.stdout).toMatch(/paired over 200 prompts answered in both runs \(A only right: 10, B only right: 0; exact McNemar p = 0\.0020\)/);
    expect(out.stdout).toMatch(/verdict: worse/);
    // 50 of 200 answers (id % 4 = 1) differ from the second word on: "answer <id>" vs "answer <id> but longer" → word 3.
    expect(out.stdout).toMatch(/identical outputs: 150\/200 \(75\.0%\); where they differ, the first difference is at word 3 \(median\)/);

    const json = JSON.parse((await runCli(['compare', slow, fast, '--vary', 'gpu', '--json'])).stdout) as {
      pairs: Array<{ quality: { method: string; delta: number; ci: [number, number]; p_value: number; verdict: string; pairs: unknown } }>;
    };
    const q = json.pairs[0]!.quality;
    expect(q.method).toBe('paired');
    expect(q.delta).toBeCloseTo(-0.05, 12);
    expect(q.p_value).toBeCloseTo(2 / 1024, 12);
    expect(q.ci[1]).toBeLessThan(0);
    expect(q.pairs).toEqual({ n: 200, a_only: 10, b_only: 0 });
  });

  it('--fail-on-quality-drop exits 4 on a drop beyond the threshold, 0 within it', async () => {
    const gate = await runCli(['compare', slow, fast, '--vary', 'gpu', '--fail-on-quality-drop', '1%']);
    expect(gate.code).toBe(EXIT_CODES.REGRESSION);
    expect(gate.stderr).toMatch(/accuracy -5\.0 pts/);
    expect(gate.stdout).toMatch(/REGRESSION beyond --fail-on-quality-drop/);
    const loose = await runCli(['compare', slow, fast, '--vary', 'gpu', '--fail-on-quality-drop', '10%']);
    expect(loose.code, loose.stderr).toBe(EXIT_CODES.OK);
    // The other way round, accuracy went up: never a regression.
    const up = await runCli(['compare', fast, slow, '--vary', 'gpu', '--fail-on-quality-drop', '1%']);
    expect(up.code, up.stderr).toBe(EXIT_CODES.OK);
    expect(up.stdout).toMatch(/B vs A: slower — worse: .*; closed loop: throughput is a result, judged as speed; accuracy \+5\.0 pts \(significant\)/);
    const bad = await runCli(['compare', slow, fast, '--vary', 'gpu', '--fail-on-quality-drop', 'lots']);
    expect(bad.code).toBe(EXIT_CODES.USAGE);
  });

  it('analyze recomputes the quality figures from the saved records', async () => {
    const out = await runCli(['analyze', fast, '--json']);
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as { quality: { checked: number; answered: number; accuracy: { k: number; n: number; value: number; ci95: [number, number] }; success: { count: number; per_s: number } }; metrics: { duration_s: number } };
    expect(result.quality.checked).toBe(200);
    expect(result.quality.accuracy).toMatchObject({ k: 180, n: 200 });
    // Wilson 95% for 180/200, by hand: centre 0.89246, half 0.04187
    expect(result.quality.accuracy.ci95[0]).toBeCloseTo(0.8506, 3);
    expect(result.quality.accuracy.ci95[1]).toBeCloseTo(0.9343, 3);
    // No SLOs: every correct answer of an ok request is a success.
    expect(result.quality.success.count).toBe(180);
    expect(result.quality.success.per_s).toBeCloseTo(180 / result.metrics.duration_s, 9);
    const text = await runCli(['analyze', fast]);
    expect(text.stdout).toMatch(/Quality: 200 checked requests, 200 answered/);
    expect(text.stdout).toMatch(/Accuracy \(all answered\)\s+90\.0% \[85\.1–93\.4%\] \(180\/200\)/);
  });
});
