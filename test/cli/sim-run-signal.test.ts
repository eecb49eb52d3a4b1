/**
 * `sim run` stopped by a real OS signal (issue 22): the virtual-time loop gives the event loop a
 * turn every ~50 ms of wall time (sim/virtual.ts runVirtualPaced), so SIGTERM/SIGINT stop it
 * mid-run: what was simulated is saved, the summary printed, exit 128 + the signal. The test waits
 * for events (the first progress line, the exit), never for a fixed time.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { RunResult } from '../../src/report/result-json.js';
import { tempDir } from '../helpers/temp-dir.js';

const ENTRY = new URL('../../src/cli/entry.ts', import.meta.url).pathname;
/** Two hours of virtual traffic at 20 req/s (~144,000 requests): far longer than the wait for the first progress line. */
const LONG_SIM = ['sim', 'run', '--request-rate', '20', '--duration', '2h', '--progress', 'lines'];

describe('sim run under a real stop signal (child process)', () => {
  it.each([
    ['SIGTERM', EXIT_CODES.SIGTERM],
    ['SIGINT', EXIT_CODES.SIGINT],
  ] as const)('%s after the first progress line: stops mid-run, saves what was simulated, exit %i', { timeout: 240_000 }, async (sig, code) => {
    const dir = tempDir('sim-sig');
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...LONG_SIM, '--result-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (!signalled && /^\[\d+:\d\d\] /m.test(stderr)) {
        signalled = true;
        child.kill(sig);
      }
    });
    const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (c, s) => r({ code: c, signal: s })));
    expect(signalled, stderr).toBe(true);
    expect(end, stderr).toEqual({ code, signal: null });
    expect(stderr).toContain(`${sig}: stopping`);
    expect(stderr).toContain('interrupted: the simulation is reported as far as it ran');
    expect(stdout).toContain('== infermeter sim run:');
    const runDir = join(dir, readdirSync(dir).find((d) => !d.startsWith('.') && !d.startsWith('history'))!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
    expect(result.run.interrupted).toBe(true);
    expect(result.metrics.requests.total).toBeGreaterThan(0);
    // Stopped mid-run: far short of the two hours' ~144,000 requests.
    expect(result.metrics.requests.total).toBeLessThan(100_000);
    const lines = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
  });
});
