import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/index.js';
import { isDegraded, isOom } from '../../src/metrics/defs/stability.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { rec } from './make-record.js';

describe('stability figures', () => {
  it('OOM from the error text; degraded = ok but cut before max_tokens without a reason', () => {
    const records = [
      rec({ status: 'error', error_class: 'server_error_event', error_message: 'CUDA out of memory. Tried to allocate 2.00 GiB', chunks: [1] }),
      rec({ status: 'error', error_class: 'http_5xx', http_status: 500, error_message: 'RuntimeError: OOM when allocating tensor' }),
      rec({ status: 'error', error_class: 'http_5xx', http_status: 500, error_message: 'internal server error' }),
      rec({ status: 'ok', chunks: [1, 2, 3], requested_output_tokens: 10, finish_reason: null }), // degraded
      rec({ status: 'ok', chunks: [1, 2, 3], requested_output_tokens: 10, finish_reason: 'length' }), // degraded: "length" before the length
      rec({ status: 'ok', chunks: [1, 2, 3], requested_output_tokens: 10, finish_reason: 'stop' }), // an EOS: fine
      rec({ status: 'ok', chunks: [1, 2, 3], requested_output_tokens: 3, finish_reason: 'length' }),
      rec({ status: 'ok', chunks: [1, 2, 3], requested_output_tokens: null, finish_reason: null }),
    ];
    expect(records.map(isOom)).toEqual([true, true, false, false, false, false, false, false]);
    expect(records.map(isDegraded)).toEqual([false, false, false, true, true, false, false, false]);
    const m = computeMetrics(records);
    // 2 OOM of 8 attempts; 2 degraded of 8
    expect(m.requests.oom).toBe(2);
    expect(m.requests.oom_rate).toBe(0.25);
    expect(m.requests.degraded).toBe(2);
    expect(m.requests.degraded_rate).toBe(0.25);
  });

  describe('against the simulator with only its OOM fault on', () => {
    let sim: SimServer;
    beforeAll(async () => {
      sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, faults: { seed: 3, oomRate: 0.3 } });
    });
    afterAll(() => sim.close());

    it('every error event is an OOM, and each one is counted', async () => {
      const out = await runCli([
        'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos', '--num-prompts', '60',
        '--request-rate', 'inf', '--random-input-len', '16', '--random-output-len', '8', '--no-save', '--json', '--progress', 'none', '--workers', '0', '--no-metrics',
      ]);
      const m = (JSON.parse(out.stdout) as RunResult).metrics;
      expect(m.requests.by_error_class.server_error_event ?? 0).toBeGreaterThan(5);
      expect(m.requests.oom).toBe(m.requests.by_error_class.server_error_event);
      expect(m.requests.oom + m.requests.ok).toBe(60);
      expect(m.requests.degraded).toBe(0);
    });
  });
});
