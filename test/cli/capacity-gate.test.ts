/**
 * `infermeter run`'s capacity check as the run session applies it (src/session/capacity-gate.ts), with the
 * self-test's figures given (the measurement is wall-clock: test/timing/): --workers chosen, a
 * refusal naming --distributed and the worker machines, --allow-invalid running anyway, the
 * quickstart lowering its demo rate or saying the machine is busy, and the switches that skip it.
 */
import { describe, expect, it } from 'vitest';
import { capacityGate, shareCapacityCheck } from '../../src/session/capacity-gate.js';
import { prepareRun } from '../../src/session/prepare-run.js';
import { resolveRunSpec } from '../../src/cli/resolve-spec.js';
import { UserError } from '../../src/errors/user-error.js';
import { fixedProbe } from '../helpers/capacity-probe.js';

// One thread: 400 req/s of the probe's shape saturated → 200 req/s accurately.
const figures = fixedProbe;

async function gate(flags: Record<string, unknown>, probe = figures(), cores = 4) {
  const spec = resolveRunSpec({ randomOutputLen: 32, ...flags });
  const lines: string[] = [];
  const { workload } = await prepareRun(spec, () => {}, { lengthsOnly: true });
  const check = await capacityGate(spec, workload, (l) => lines.push(l), { probe, env: {}, cores });
  return { spec, check, lines };
}

describe('the capacity gate', () => {
  it('chooses --workers for the plan and says what this machine can drive', async () => {
    const { spec, check, lines } = await gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '500', numPrompts: 100 });
    expect(check!.plan).toMatchObject({ workers_needed: 3, workers: 3, fits: true, max_workers: 3 });
    expect(spec.load.workers).toBe(3);
    expect(check!.action).toBe('--workers 3 chosen');
    expect(lines[1]).toBe('this machine can drive ~600 req/s (~19200 output tokens/s) of this shape (32 output tokens, 16 streams per worker; event-loop delay p99 1.0 ms idle, 9.0 ms saturated) with 3 workers; the plan needs 500 req/s (~16000 output tokens/s), 3 workers');
  });

  it('beyond all cores: one line naming --distributed and the worker machines (exit 2); --allow-invalid runs anyway', async () => {
    const run = gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '2000', numPrompts: 100 });
    await expect(run).rejects.toThrow(UserError);
    await expect(run).rejects.toThrow(/^capacity check: the plan needs 2000 req\/s, and all 3 workers of this machine can drive ~600: run it with --distributed on 4 worker machines like this one/);
    const anyway = await gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '2000', numPrompts: 100, allowInvalid: true });
    expect(anyway.check!.action).toBe('beyond capacity, run anyway (--allow-invalid)');
    expect(anyway.lines.at(-1)).toMatch(/run it with --distributed on 4 worker machines like this one; running anyway \(--allow-invalid\)/);
  });

  it('--workers given too few: kept, and refused naming the workers needed', async () => {
    await expect(gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '500', numPrompts: 100, workers: 1 })).rejects.toThrow(/needs 3 workers and --workers 1 can drive ~200 of its 500 req\/s: give --workers 3/);
  });

  it('the quickstart lowers its demo rate to what the machine carries, and says a busy machine before it starts', async () => {
    const slow = await gate({}, figures({ requests_per_s: 10 }), 2);
    // 1 thread × 10 × 0.5 = 5 req/s < the demo's 10.
    expect(slow.spec.load.request_rate).toBe(5);
    expect(slow.lines.at(-1)).toBe('quickstart: this machine carries ~5 req/s of the demo beside the built-in simulator now; the demo runs at 5 req/s instead of 10 (give --request-rate to choose)');
    const busy = await gate({}, figures({ idle_lag_p99_ms: 30 }), 2);
    expect(busy.spec.load.request_rate).toBe(10);
    expect(busy.lines.at(-1)).toMatch(/^quickstart: this machine is too busy to keep a schedule now: with no load its event loop runs a due timer 30\.0 ms late \(p99\), and a valid run needs dispatch lag p99 ≤ 10 ms: the demo runs, and its verdict will likely say the client fell behind$/);
    // The same rate given by the user is not the demo's to lower: refused.
    await expect(gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '10', numPrompts: 200 }, figures({ requests_per_s: 10 }), 2)).rejects.toThrow(/--distributed on 2 worker machines/);
  });

  it('skipped with --no-capacity-check, INFERMETER_CAPACITY_CHECK=off, or a trace replay; a closed loop is checked but never refused', async () => {
    const spec = resolveRunSpec({ baseUrl: 'http://127.0.0.1:9', requestRate: '100000', numPrompts: 10, capacityCheck: false });
    const { workload } = await prepareRun(spec, () => {}, { lengthsOnly: true });
    expect(await capacityGate(spec, workload, () => {}, { probe: figures(), env: {} })).toBeNull();
    const on = resolveRunSpec({ baseUrl: 'http://127.0.0.1:9', requestRate: '100000', numPrompts: 10 });
    expect(await capacityGate(on, workload, () => {}, { probe: figures(), env: { INFERMETER_CAPACITY_CHECK: 'off' } })).toBeNull();
    const closed = await gate({ baseUrl: 'http://127.0.0.1:9', concurrency: 64, numPrompts: 100 }, figures({ idle_lag_p99_ms: 50 }));
    expect(closed.check!.plan).toMatchObject({ workers_needed: null, fits: true, busy: false });
    // 64 users over the 3 default threads: 22 streams each in the self-test.
    expect(closed.check!.probe.concurrency).toBe(22);
  });

  it('a distributed worker checks its share (1/N of the plan) on its own threads, and says, never refuses', async () => {
    const spec = resolveRunSpec({ baseUrl: 'http://127.0.0.1:9', requestRate: '1200', numPrompts: 100, randomOutputLen: 32 });
    const { workload } = await prepareRun(spec, () => {}, { lengthsOnly: true });
    const lines: string[] = [];
    // 1200 req/s over 4 workers: 300 each; 2 threads of 200 carry 400.
    const fits = await shareCapacityCheck(spec, workload, { index: 1, count: 4 }, 2, (l) => lines.push(l), { probe: figures(), env: {}, cores: 4 });
    expect(fits!.plan).toMatchObject({ workers_needed: 2, workers: 2, fits: true });
    expect(lines).toEqual(['worker 1: this machine can drive ~400 req/s (~12800 output tokens/s) of this shape (32 output tokens, 16 streams per worker thread) with 2 workers; its share (1/4) needs 300 req/s (~9600 output tokens/s), 2 workers']);
    lines.length = 0;
    // Over 2 workers: 600 each, beyond 1 thread's 200.
    const beyond = await shareCapacityCheck(spec, workload, { index: 0, count: 2 }, 1, (l) => lines.push(l), { probe: figures(), env: {}, cores: 4 });
    expect(beyond!.plan.fits).toBe(false);
    expect(lines[1]).toBe('worker 0: the plan needs 3 workers and --workers 1 can drive ~200 of its 600 req/s: give --workers 3 — this worker runs its share anyway; expect the verdict to say the client fell behind');
  });
});
