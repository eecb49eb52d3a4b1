/**
 * Wall time, measured: how soon after its scheduled time each request leaves, how precise the
 * run clock is, and how the busy-poll loop counts work. Each tolerance is a fixed part plus a
 * multiple of the scheduling noise measured during the test (noise-probe.ts); docs/testing.md
 * gives the spread measured under load.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { BusyPoll } from '../../src/runner/busy-poll.js';
import { createRunClock, hrtimeNowNs } from '../../src/runner/run-clock.js';
import { runLoad, type Sender } from '../../src/runner/run-load.js';
import type { WorkItem } from '../../src/workload/types.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startNoiseProbe } from './noise-probe.js';
import { constantRateLoad } from './constant-rate-load.js';
import { observe } from './observe.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function lateness(rate: number, n: number): Promise<number> {
  const t0 = performance.now();
  const clock = () => performance.now() - t0;
  const sender: Sender = {
    prepare: (w: WorkItem) => w,
    send: async (rec: RequestRecord) => {
      rec.sent_ms = clock();
      await sleep(1);
      rec.end_ms = rec.first_token_ms = clock();
      rec.output_tokens = 4;
      return rec;
    },
    cancelAll: () => {},
  };
  const out = await runLoad(constantRateLoad(rate, n, sender, clock));
  return Math.max(...out.records.map((r) => r.sent_ms - r.scheduled_ms));
}

describe('sending on schedule', () => {
  it('the open loop sends each request soon after its time (100/s and 500/s)', async () => {
    for (const [rate, n] of [[100, 20], [500, 100]] as const) {
      const probe = startNoiseProbe();
      const late = await lateness(rate, n);
      const noise = observe(`runner.noise_max_${rate}rps_ms`, probe.stop().max);
      // one wait: the loop's own wake-up for the send
      expect(observe(`runner.max_lateness_${rate}rps_ms`, late)).toBeLessThan(2 + 2 * noise);
    }
  });

  it('trace replay through the CLI sends each item soon after its trace time', async () => {
    const dir = tempDir('timing-trace');
    const probe = startNoiseProbe();
    const out = await runCli([
      'run', '--dataset-name', 'trace', '--dataset-path', resolve('test/fixtures/workload/mooncake-sample.jsonl'),
      '--trace-time-scale', '0.5', '--trace-rate-scale', '1.25', '--sim-prefill-ms', '5', '--sim-per-token-ms', '1',
      '--result-dir', dir, '--progress', 'none',
    ]);
    const noise = observe('trace.noise_max_ms', probe.stop().max);
    // A client that fell behind makes the run invalid (exit 5); the tolerances below judge that.
    expectCompleted(out);
    const lines = readFileSync(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'records.jsonl'), 'utf8').trim().split('\n');
    const late = Math.max(...lines.map((l) => JSON.parse(l) as RequestRecord).map((r) => r.sent_ms - r.scheduled_ms));
    expect(observe('trace.max_lateness_ms', late)).toBeLessThan(2 + 3 * noise);
  });
});

describe('run clock precision', () => {
  it('agrees with hrtime to within microseconds (best of 20 readings)', () => {
    const originNs = hrtimeNowNs();
    const clock = createRunClock(originNs);
    let best = Infinity;
    for (let i = 0; i < 20; i++) {
      const c = clock();
      const h = Number(process.hrtime.bigint() - BigInt(originNs)) / 1e6;
      best = Math.min(best, Math.abs(h - c));
    }
    expect(observe('clock.best_offset_error_ms', best)).toBeLessThan(0.02);
  });
});

describe('busy-poll accounting', () => {
  it('counts blocked turns as work and spinning as idle', async () => {
    const block = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const busy = new BusyPoll().start();
    // 3 × 25 ms of synchronous work inside ~90 ms of wall time
    for (let i = 0; i < 3; i++) {
      await sleep(5);
      block(25);
    }
    const busyShare = observe('busypoll.busy_share', busy.stop());
    expect(busyShare).toBeGreaterThan(0.5);
    expect(busyShare).toBeLessThanOrEqual(1);
    // A spinning thread that the OS does not run cannot tell that from work: the share of the
    // wall time this process was off the CPU is the noise here.
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    const idle = new BusyPoll().start();
    await sleep(60);
    const idleShare = observe('busypoll.idle_share', idle.stop());
    const cpu = process.cpuUsage(cpu0);
    const offCpu = observe('busypoll.off_cpu_share', Math.max(0, 1 - (cpu.user + cpu.system) / 1000 / (performance.now() - wall0)));
    expect(idleShare).toBeLessThan(0.35 + offCpu);
  });
});
