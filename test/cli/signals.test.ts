/**
 * Stop signals: SIGTERM and SIGHUP end a run as Ctrl-C does (stop sending, cancel what is in
 * flight, flush the records, write result.json, print the summary, exit 128 + signal), and a
 * signal that arrives before the load starts is not swallowed. The real-signal tests spawn the
 * CLI; they wait for events (records on disk, the process's exit), never for a fixed time.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { startSimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { firstRecordWritten, runCli } from '../helpers/cli.js';
import { tempDir as scratch } from '../helpers/temp-dir.js';

const ENTRY = new URL('../../src/cli/entry.ts', import.meta.url).pathname;
const tempDir = () => scratch('sig');

/** A run that would take 20 s: 400 requests at 20 req/s, each ~0.3 s long. */
const LONG_RUN = ['run', '--sim-prefill-ms', '5', '--sim-per-token-ms', '20', '--num-prompts', '400', '--request-rate', '20', '--random-input-len', '16', '--random-output-len', '15', '--progress', 'none'];

describe('real stop signals (child process)', () => {
  it.each([
    ['SIGTERM', EXIT_CODES.SIGTERM],
    ['SIGHUP', EXIT_CODES.SIGHUP],
    ['SIGINT', EXIT_CODES.SIGINT],
  ] as const)('%s: records complete, result.json written, summary printed, exit %i', { timeout: 90_000 }, async (sig, code) => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...LONG_RUN, '--result-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (c, s) => r({ code: c, signal: s })));
    let done = false;
    void exited.then(() => (done = true));
    const runDir = await firstRecordWritten(dir, () => done);
    child.kill(sig);
    const end = await exited;
    expect(end, stderr).toEqual({ code, signal: null });
    expect(stderr).toContain(`${sig}: stopping`);
    expect(stdout).toContain('== infermeter run:');
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
    expect(result.run.interrupted).toBe(true);
    const records = readRecordsFile(join(runDir, 'records.jsonl'));
    expect(records.truncatedTail).toBe(false);
    // Every request that was sent has its record: as many lines as the result counts, ids unique.
    expect(records.records).toHaveLength(result.metrics.requests.total);
    expect(new Set(records.records.map((r) => r.id)).size).toBe(records.records.length);
    expect(result.metrics.requests.total).toBeLessThan(400);
    expect(result.metrics.requests.ok).toBeGreaterThan(0);
  });
});

describe('a signal before the load starts', () => {
  it('is not swallowed: nothing is sent, no run directory, exit 130', async () => {
    const dir = tempDir();
    const ac = new AbortController();
    ac.abort();
    const out = await runCli([...LONG_RUN, '--result-dir', join(dir, 'results')], {}, ac.signal);
    expect(out.code, out.stderr).toBe(EXIT_CODES.SIGINT);
    expect(out.stderr).toContain('interrupted before the load started: nothing was sent');
    expect(out.stderr).not.toContain('pre-flight ok');
  });

  it('names the signal in the exit code (SIGTERM → 143)', async () => {
    const ac = new AbortController();
    ac.abort('SIGTERM');
    const out = await runCli([...LONG_RUN, '--no-save'], {}, ac.signal);
    expect(out.code, out.stderr).toBe(EXIT_CODES.SIGTERM);
  });
});

describe('a command that sends no requests, stopped', () => {
  it('watch, Ctrl-C: "stopping" without cancelling requests it never sent, exit 130', { timeout: 60_000 }, async () => {
    const sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 } });
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'watch', '--metrics-url', `${sim.url}/metrics`, '--interval', '1s'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (c, s) => r({ code: c, signal: s })));
      // The first frame printed: watch is scraping; then Ctrl-C.
      await new Promise<void>((r) => child.stdout.once('data', () => r()));
      child.kill('SIGINT');
      const end = await exited;
      expect(end, stderr).toEqual({ code: EXIT_CODES.SIGINT, signal: null });
      expect(stderr).toContain('SIGINT: stopping (send it again to quit at once)');
      expect(stderr).not.toContain('cancelling requests');
    } finally {
      await sim.close();
    }
  });
});
