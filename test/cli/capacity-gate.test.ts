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
    expect(lines[1]).toBe('this machine can drive ~600 req/s (~19200 output tokens/s) of this shape (32 output tokens, 16 streams per worker; event-loop delay p99 1.0 ms idle, 9.0 ms saturated; load average 2.0 on 4 cores) with 3 workers; the plan needs 500 req/s (~16000 output tokens/s), 3 workers');
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

  it('the quickstart lowers its demo rate (and prompts, keeping its ~20 s) to what the machine carries', async () => {
    const slow = await gate({}, figures({ requests_per_s: 10 }), 2);
    // 1 thread × 10 × 0.5 = 5 req/s < the demo's 10: 5 req/s × 20 s = 100 prompts.
    expect(slow.spec.load.request_rate).toBe(5);
    expect(slow.spec.load.num_prompts).toBe(100);
    expect(slow.check!.action).toBe('demo lowered to 100 prompts at 5 req/s');
    expect(slow.lines.at(-1)).toBe('quickstart: this machine carries ~5 req/s of the demo beside the built-in simulator now; the demo sends 100 prompts at 5 req/s instead of 200 at 10 (give --request-rate to choose)');
    // Never below 20 prompts: 1 req/s sends 20, not 20 s × 1.
    const slower = await gate({}, figures({ requests_per_s: 1 }), 2);
    expect([slower.spec.load.request_rate, slower.spec.load.num_prompts]).toEqual([1, 20]);
    // The same rate given by the user is not the demo's to lower: refused.
    await expect(gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '10', numPrompts: 200 }, figures({ requests_per_s: 10 }), 2)).rejects.toThrow(/--distributed on 2 worker machines/);
  });

  it('the quickstart on a busy or crowded machine says before t = 0, in one line, that it will likely end INVALID, why, and the ways out; it still runs', async () => {
    const busy = await gate({}, figures({ idle_lag_p99_ms: 30 }), 2);
    expect([busy.spec.load.request_rate, busy.spec.load.num_prompts]).toEqual([10, 200]);
    expect(busy.check!.action).toBe('demo run on a busy machine');
    expect(busy.lines.at(-1)).toBe(
      'quickstart: this machine is too busy now for a valid demo (load average 1.0 on 2 cores; with no load its event loop runs a due timer 30.0 ms late (p99), and a valid run needs dispatch lag p99 ≤ 10 ms): it runs anyway and will likely end INVALID because the client falls behind its schedule; run it again when the machine is quieter, or point it at a server on another machine with --base-url',
    );
    // A quiet idle sample on a machine crowded for the last minute (load average 17.2 on 2 cores).
    const crowded = await gate({}, figures({ load_per_core: 8.6 }), 2);
    expect(crowded.check!.plan).toMatchObject({ fits: true, busy: false, contended: true });
    expect(crowded.check!.action).toBe('demo run on a crowded machine');
    expect(crowded.lines.at(-1)).toMatch(/^quickstart: this machine is too crowded now for a valid demo \(load average 17\.2 on 2 cores\): it runs anyway and will likely end INVALID .* --base-url$/);
    // A self-test that saw nothing finish: busy, and no "Infinity workers".
    const starved = await gate({}, figures({ requests_per_s: 0, output_tokens_per_s: 0, load_per_core: 9.7 }), 2);
    expect(starved.lines.join('\n')).not.toMatch(/Infinity/);
    expect(starved.lines.at(-1)).toMatch(/^quickstart: this machine is too busy now for a valid demo \(load average 19\.4 on 2 cores; the self-test saw no request of 16 streams finish in 1\.0 s\)/);
    // Quiet: nothing said beyond the capacity line.
    const quiet = await gate({}, figures(), 2);
    expect(quiet.lines).toHaveLength(2);
    expect(quiet.check!.action).toBe('--workers 1 chosen');
  });

  it('any other run on a crowded machine: one warning line before t = 0, not a refusal', async () => {
    const { check, lines } = await gate({ baseUrl: 'http://127.0.0.1:9', requestRate: '50', numPrompts: 100 }, figures({ load_per_core: 4 }), 4);
    expect(check!.plan).toMatchObject({ fits: true, contended: true });
    expect(lines.at(-1)).toBe(
      'capacity check: this machine is crowded (load average 16.0 on 4 cores: more than 1.5 tasks per core over the last minute), so the schedule may slip once the run is under way; if the verdict says the client fell behind, free some cores or run with --distributed on idle worker machines',
    );
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
