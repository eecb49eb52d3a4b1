/**
 * A closed loop never runs on more load threads than it has users: a thread without a user sends
 * nothing, so its share of the requests would be lost (it was: --concurrency 1 on 2 threads sent
 * half the requests).
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

describe('closed loop over load threads', () => {
  it('--concurrency 1 with --workers 2 sends every request, on one thread', async () => {
    const out = await runCli(['run', '--concurrency', '1', '--workers', '2', '--num-prompts', '10', '--random-input-len', '8', '--random-output-len', '4', '--sim-prefill-ms', '1', '--sim-per-token-ms', '1', '--progress', 'none', '--no-save', '--json', '--allow-invalid']);
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as RunResult;
    expect(result.metrics.requests.total).toBe(10);
    expect(result.client.workers).toBe(1);
  });
});
