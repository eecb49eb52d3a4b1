/**
 * One validity verdict and one exit-code mapping for every command (issue 22): a sweep whose
 * every request fails is invalid (exit 5), not a pass; a sweep or `sim run` stopped by SIGTERM
 * exits 143. Over real HTTP on 127.0.0.1 against the simulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli, sink } from '../helpers/cli.js';

describe('a sweep whose every request gets HTTP 500', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, faults: { seed: 1, http500Rate: 1 } });
  });
  afterAll(() => sim.close());
  const ARGS = () => ['sweep', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--request-rates', '20,40', '--num-prompts', '6', '--random-input-len', '8', '--random-output-len', '4', '--progress', 'none', '--no-save', '--json'];

  it('is invalid: exit 5, pass false, the invalid stages named', async () => {
    const out = await runCli(ARGS());
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    const r = JSON.parse(out.stdout) as SweepResult;
    expect(r.pass).toBe(false);
    expect(r.invalid_stages).toEqual([0, 1]);
    expect(r.stages[0]!.validity!.failed_checks).toContain('no_success');
    expect(r.stages[0]!.metrics.requests.failed).toBe(6);
    expect(out.stderr).toMatch(/invalid sweep \(exit 5; --allow-invalid accepts it\): 2 of 2 stages invalid; stage 1 \(20 req\/s\): /);
  });

  it('--allow-invalid accepts it and says so in sweep.json', async () => {
    const out = await runCli([...ARGS(), '--allow-invalid']);
    expect(out.code, out.stderr).toBe(EXIT_CODES.OK);
    const r = JSON.parse(out.stdout) as SweepResult;
    expect(r.allow_invalid).toBe(true);
    expect(r.invalid_stages).toEqual([0, 1]);
    expect(out.stderr).toContain('invalid sweep (accepted with --allow-invalid)');
  });
});

/** Runs the CLI in-process; `onLine` sees each stderr write (to raise a signal at a chosen point). */
async function cliWatching(argv: string[], onLine: (text: string, ac: AbortController) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  const ac = new AbortController();
  const stdout = sink();
  const stderr = sink();
  const origWrite = stderr.write.bind(stderr);
  stderr.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    onLine(chunk.toString(), ac);
    return (origWrite as (c: string | Buffer, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof stderr.write;
  const code = await main(argv, { stdout, stderr, env: {}, signal: ac.signal });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('stop signals map to one exit code', () => {
  it('a sweep stopped by SIGTERM during a stage exits 143, its stages kept', { timeout: 60_000 }, async () => {
    const out = await cliWatching(
      ['sweep', '--sim-prefill-ms', '5', '--sim-per-token-ms', '20', '--request-rates', '20,40', '--num-prompts', '200', '--random-input-len', '8', '--random-output-len', '15', '--progress', 'none', '--no-save', '--json', '--allow-invalid'],
      (text, ac) => {
        if (/stage 1\/2 .*: starting/.test(text)) setTimeout(() => ac.abort('SIGTERM'), 300);
      },
    );
    expect(out.code, out.stderr).toBe(EXIT_CODES.SIGTERM);
    const r = JSON.parse(out.stdout) as SweepResult;
    expect(r.sweep.interrupted).toBe(true);
    expect(r.stages.length).toBe(1);
    expect(r.stages[0]!.records).toBeLessThan(200);
  });

  it('`sim run` with SIGTERM stops and exits 143, reporting what it simulated', async () => {
    const out = await cliWatching(['sim', 'run', '--num-prompts', '2000', '--request-rate', '50', '--random-input-len', '64', '--random-output-len', '32', '--progress', 'none', '--no-save', '--json'], (text, ac) => {
      if (text.includes('virtual time…')) ac.abort('SIGTERM');
    });
    expect(out.code, out.stderr).toBe(EXIT_CODES.SIGTERM);
    const r = JSON.parse(out.stdout) as RunResult;
    expect(r.run.interrupted).toBe(true);
    expect(r.metrics.requests.total).toBeLessThan(2000);
  });
});
