/**
 * A misbehaving server is recorded and classified, and the run goes on: the CLI against the
 * simulator with every fault mode switched on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

describe('infermeter run against a faulty server', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({
      timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 1 },
      faults: { seed: 5, http429Rate: 0.1, http500Rate: 0.1, oomRate: 0.05, disconnectRate: 0.1, stallRate: 0.05, stallMs: 5000, malformedRate: 0.05 },
    });
  });
  afterAll(() => sim.close());

  it('classifies every failure and still reports the requests that succeeded', async () => {
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos',
      '--num-prompts', '120', '--request-rate', '400', '--random-input-len', '16', '--random-output-len', '12',
      '--timeout', '2s', '--no-save', '--json', '--progress', 'none', '--workers', '1',
    ]);
    // About 40% of the requests fail: far above the default --max-failure-rate (5%), an invalid run.
    expect(out.code, out.stderr).toBe(5);
    const result = JSON.parse(out.stdout) as RunResult;
    expect(result.validity!.failed_checks[0]).toBe('failure_rate');
    expect(result.validity!.reasons[0]).toMatch(/^failure rate \d+\.\d\d% > --max-failure-rate 5\.00%/);
    const m = result.metrics;
    const classes = m.requests.by_error_class;
    expect(m.requests.total).toBe(120);
    expect(m.requests.ok + m.requests.failed).toBe(120);
    expect(m.requests.ok).toBeGreaterThan(40);
    for (const cls of ['http_429', 'http_5xx', 'server_error_event', 'disconnect', 'malformed_stream'] as const) {
      expect(classes[cls] ?? 0, cls).toBeGreaterThan(0);
    }
    // Stalled streams (5 s) outlive the 2 s timeout.
    expect(m.requests.by_status.timeout).toBeGreaterThan(0);
    expect(m.latency.ttft_ms.count).toBe(m.requests.ok);
    expect(m.tokens.output_total).toBe(m.requests.ok * 12);
  });
});

describe('infermeter run against a server whose streams stall', () => {
  let sim: SimServer;
  beforeAll(async () => {
    // A stalled stream goes silent after a random token for 8 s, then the server drops it.
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 1 }, faults: { seed: 3, stallRate: 0.25, stallMs: 8000 } });
  });
  afterAll(() => sim.close());

  it('--stall-timeout ends each stalled stream as stalled, long before the server would drop it or --timeout would end it', async () => {
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos',
      '--num-prompts', '40', '--request-rate', '200', '--random-input-len', '16', '--random-output-len', '12',
      '--stall-timeout', '1s', '--timeout', '60s', '--max-failure-rate', '100%', '--no-save', '--json', '--progress', 'none', '--workers', '1',
    ]);
    const result = JSON.parse(out.stdout) as RunResult;
    // Valid, unless this busy machine made the client late (a client check, not the stalls).
    const clientOnly = result.validity!.failed_checks.every((c) => ['dispatch_lag', 'event_loop', 'client_busy'].includes(c));
    expect(out.code === 0 || (out.code === 5 && clientOnly), JSON.stringify(result.validity)).toBe(true);
    const m = result.metrics;
    const stalled = m.requests.by_error_class.stalled ?? 0;
    expect(stalled).toBeGreaterThan(0);
    // Every failure is a stall: none reached the server's 8 s drop (disconnect) or the timeout.
    expect(m.requests.failed).toBe(stalled);
    expect(m.requests.by_error_class.disconnect).toBeUndefined();
    expect(m.requests.by_status.timeout ?? 0).toBe(0);
  });
});
