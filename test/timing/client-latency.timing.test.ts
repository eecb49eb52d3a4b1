/**
 * Wall time, measured: how far above the simulator's known delays the client's figures land on
 * this machine. Each tolerance is a fixed part plus a multiple of the scheduling noise measured
 * during the test (noise-probe.ts); docs/testing.md gives the spread measured under load.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HttpTarget } from '../../src/client/http-client.js';
import { emptyRecord } from '../../src/record/record.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer } from '../../src/sim/index.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';
import { postSse } from '../sim/helpers.js';
import { startNoiseProbe } from './noise-probe.js';
import { observe } from './observe.js';

describe('client latency above the server’s known delays', () => {
  it('infermeter run: TTFT and TPOT medians close to the fixed delays', async () => {
    const PREFILL_MS = 30;
    const PER_TOKEN_MS = 4;
    const dir = tempDir('timing-run');
    const probe = startNoiseProbe();
    const out = await runCli([
      'run', '--sim-prefill-ms', String(PREFILL_MS), '--sim-per-token-ms', String(PER_TOKEN_MS),
      '--num-prompts', '24', '--request-rate', '40', '--warmup', '2',
      '--random-input-len', '64', '--random-output-len', '16', '--result-dir', dir, '--progress', 'none',
    ]);
    const noise = observe('run.noise_max_ms', probe.stop().max);
    // A client that fell behind makes the run invalid (exit 5); the tolerances below judge that.
    expectCompleted(out);
    const result = JSON.parse(readFileSync(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'result.json'), 'utf8')) as RunResult;
    const { ttft_ms, tpot_ms } = result.metrics.latency;
    // a first token passes through about four waits (send, server read, server timer, client read)
    expect(observe('run.ttft_p50_excess_ms', ttft_ms.p50! - PREFILL_MS)).toBeLessThan(20 + 4 * noise);
    // a late first token shortens the gaps after it; a late last one lengthens them by its
    // lateness over the 15 gaps
    expect(observe('run.tpot_p50_excess_ms', tpot_ms.p50! - PER_TOKEN_MS)).toBeLessThan(3 + (4 * noise) / 15);
  });

  it('sim server: first token and the following five, as a client reads them', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 60, perTokenMs: 15 } });
    try {
      const probe = startNoiseProbe();
      const r = await postSse(`${s.url}/v1/completions`, { prompt: 'x', max_tokens: 6, ignore_eos: true, stream: true });
      const noise = observe('sim.noise_max_ms', probe.stop().max);
      expect(observe('sim.ttft_excess_ms', r.times[0]! - r.sentMs - 60)).toBeLessThan(10 + 6 * noise);
      expect(observe('sim.span_excess_ms', r.times[5]! - r.times[0]! - 75)).toBeLessThan(10 + 2 * noise);
    } finally {
      await s.close();
    }
  });

  it('ground truth: each chunk reaches the client soon after the server wrote it', async () => {
    const s = await startSimServer({ timing: { kind: 'fixed', prefillMs: 20, perTokenMs: 5 }, collectGroundTruth: true });
    const clients: Awaited<ReturnType<typeof postSse>>[] = [];
    const probe = startNoiseProbe();
    try {
      for (let i = 0; i < 3; i++) clients.push(await postSse(`${s.url}/v1/completions`, { prompt: 'abc', max_tokens: 6, ignore_eos: true, stream: true }));
    } finally {
      await s.close();
    }
    const noise = observe('gt.noise_max_ms', probe.stop().max);
    let worst = 0;
    s.groundTruth.forEach((e, i) => e.written_ms.forEach((w, k) => (worst = Math.max(worst, clients[i]!.times[k]! - w))));
    // one wait: the client's read after the server's write
    expect(observe('gt.max_read_lag_ms', worst)).toBeLessThan(5 + 2 * noise);
  });

  it('a stalled stream times out soon after the per-request timeout', async () => {
    const srv = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.write(chunk('a'));
    });
    const probe = startNoiseProbe();
    const t0 = performance.now();
    const t = new HttpTarget(
      { baseUrl: srv.url, path: '/v1/completions', model: 'm', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: true, timeoutMs: 150, keepText: false },
      () => performance.now() - t0,
    );
    const item = { prompt: 'p', messages: null, prompt_tokens: 1, max_tokens: 8, task: null, expected: null, session: null, turn: null };
    const rec = await t.send(emptyRecord(0, 0), t.prepare(item));
    const noise = observe('client.noise_max_ms', probe.stop().max);
    t.close();
    await srv.close();
    expect(rec.status).toBe('timeout');
    expect(observe('client.timeout_overshoot_ms', rec.end_ms - rec.sent_ms - 150)).toBeLessThan(10 + 2 * noise);
  });
});
