/**
 * --busy-poll: the sending thread's loop keeps turning while the run lasts, stops with it, and
 * reports the share of time spent on work (not spinning) for the validity verdict.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { BusyPoll, busyPolling } from '../../src/runner/busy-poll.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const immediates = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Immediate').length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BusyPoll', () => {
  it('keeps an immediate pending while it runs and leaves none after stop()', async () => {
    const before = immediates();
    const spin = new BusyPoll().start();
    expect(busyPolling()).toBe(true);
    await sleep(5);
    expect(immediates()).toBe(before + 1);
    spin.stop();
    expect(busyPolling()).toBe(false);
    expect(immediates()).toBe(before);
    expect(spin.stop()).toBe(0); // a second stop is harmless
  });
});

describe('infermeter run --busy-poll', () => {
  it('sends the same requests, records busy_poll, and ends (the spin stops with the run)', async () => {
    for (const workers of ['0', '1']) {
      const dir = tempDir('busy');
      const out = await runCli([
        'run', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--num-prompts', '20', '--request-rate', '200',
        '--random-input-len', '32', '--random-output-len', '5', '--seed', '4', '--busy-poll',
        '--workers', workers, '--result-dir', dir, '--progress', 'none',
      ]);
      expectCompleted(out);
      const runDir = join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!);
      const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as RunResult;
      expect(result.client['busy_poll']).toBe(true);
      const share = result.client['event_loop_utilization'] as number;
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
      expect(result.metrics.requests.ok).toBe(20);
      expect(readRecordsFile(join(runDir, 'records.jsonl')).records.every((r) => r.output_tokens === 5)).toBe(true);
      if (workers === '0') expect(immediates()).toBe(0);
    }
  });
});
