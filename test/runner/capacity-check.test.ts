/**
 * The capacity check's arithmetic (src/runner/capacity-check.ts), on hand-computed cases: from
 * one thread's saturated figures and the machine's cores to the workers the plan needs, whether
 * they fit, the worker machines a distributed run needs, and the lines the CLI prints. The
 * measurement itself is wall-clock: test/timing/capacity-probe.timing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { busyWhy, capacityLine, CONTENDED_LOAD_PER_CORE, contentionPhrase, loadNeed, maxWorkers, planCapacity, refusalLine, USABLE_SHARE, type ProbeFigures } from '../../src/runner/capacity-check.js';

// One thread completed 400 req/s of 32 tokens saturated: it can drive 200 req/s, 6400 tokens/s accurately.
const probe: ProbeFigures = { requests_per_s: 400, output_tokens_per_s: 12_800, dispatch_lag_p99_ms: 9, idle_lag_p99_ms: 1.5, concurrency: 8, output_tokens: 32, duration_ms: 1000, load_per_core: 0.5 };
/** A valid run's dispatch-lag p99 limit (ms). */
const LIMIT = 10;

describe('capacity check arithmetic', () => {
  it('the need of an open loop is its rate and rate × output tokens; a closed loop or all-at-once has none before the run', () => {
    expect(loadNeed({ request_rate: 50, concurrency: null }, 32)).toEqual({ requests_per_s: 50, output_tokens_per_s: 1600 });
    expect(loadNeed({ request_rate: Infinity, concurrency: null }, 32)).toEqual({ requests_per_s: null, output_tokens_per_s: null });
    expect(loadNeed({ request_rate: Infinity, concurrency: 16 }, 32)).toEqual({ requests_per_s: null, output_tokens_per_s: null });
  });

  it('one thread per core beside the main thread, at least one', () => {
    expect([1, 2, 4, 8, 2.5].map(maxWorkers)).toEqual([1, 1, 3, 7, 1]);
  });

  it('picks the fewest workers that carry the plan, by requests or by tokens, whichever needs more', () => {
    expect(USABLE_SHARE).toBe(0.5);
    // 500 req/s ÷ 200 per worker = 2.5 → 3 workers; tokens 500 × 32 = 16000 ÷ 6400 = 2.5 → 3.
    const p = planCapacity(probe, loadNeed({ request_rate: 500, concurrency: null }, 32), 8, null, LIMIT);
    expect(p).toEqual({
      per_worker: { requests_per_s: 200, output_tokens_per_s: 6400 },
      max_workers: 7,
      workers_needed: 3,
      workers: 3,
      capacity: { requests_per_s: 600, output_tokens_per_s: 19_200 },
      busy: false,
      contended: false,
      fits: true,
      machines_needed: 1,
    });
    // Longer answers: 100 req/s × 256 tokens = 25600 tokens/s ÷ 6400 = 4 workers, though 100 req/s alone needs 1.
    expect(planCapacity(probe, loadNeed({ request_rate: 100, concurrency: null }, 256), 8, null, LIMIT).workers_needed).toBe(4);
    // Exactly at capacity: 400 req/s of 32 tokens is 2 workers, not 3.
    expect(planCapacity(probe, { requests_per_s: 400, output_tokens_per_s: 12_800 }, 8, null, LIMIT).workers_needed).toBe(2);
  });

  it('beyond every core: does not fit, and names the worker machines of this size a distributed run needs', () => {
    // 2 cores: 1 worker of 200 req/s. 900 req/s needs 5 workers = 5 machines of 1.
    const p = planCapacity(probe, loadNeed({ request_rate: 900, concurrency: null }, 32), 2, null, LIMIT);
    expect(p).toMatchObject({ max_workers: 1, workers_needed: 5, workers: 1, fits: false, machines_needed: 5 });
    expect(refusalLine(p, loadNeed({ request_rate: 900, concurrency: null }, 32), probe, LIMIT)).toBe(
      'capacity check: the plan needs 900 req/s, and all 1 workers of this machine can drive ~200: run it with --distributed on 5 worker machines like this one (or --allow-invalid to run anyway, --no-capacity-check to skip the check)',
    );
    // 8 cores (7 workers): 3000 req/s needs 15 workers = 3 machines.
    expect(planCapacity(probe, { requests_per_s: 3000, output_tokens_per_s: 96_000 }, 8, null, LIMIT).machines_needed).toBe(3);
  });

  it('--workers given: kept; too few for the plan is a refusal that names the workers it needs', () => {
    const need = loadNeed({ request_rate: 500, concurrency: null }, 32);
    const p = planCapacity(probe, need, 8, 2, LIMIT);
    expect(p).toMatchObject({ workers: 2, workers_needed: 3, fits: false, machines_needed: 1, capacity: { requests_per_s: 400 } });
    expect(refusalLine(p, need, probe, LIMIT)).toMatch(/^capacity check: the plan needs 3 workers and --workers 2 can drive ~400 of its 500 req\/s: give --workers 3/);
    // --workers 0 (the main thread) counts as one thread.
    expect(planCapacity(probe, { requests_per_s: 150, output_tokens_per_s: 4800 }, 8, 0, LIMIT)).toMatchObject({ workers: 0, fits: true, capacity: { requests_per_s: 200 } });
  });

  it('a closed loop always fits before the run (its rate is the server’s) and keeps the default workers', () => {
    const p = planCapacity(probe, loadNeed({ request_rate: Infinity, concurrency: 64 }, 32), 4, null, LIMIT);
    expect(p).toMatchObject({ workers_needed: null, workers: 3, fits: true, machines_needed: 1 });
    expect(capacityLine(p, loadNeed({ request_rate: Infinity, concurrency: 64 }, 32), '32 output tokens, 8 streams per worker')).toBe(
      "this machine can drive ~600 req/s (~19200 output tokens/s) of this shape (32 output tokens, 8 streams per worker) with 3 workers; the plan's rate is set by the server (closed loop or all at once), so it is not checked before the run",
    );
  });

  it('the line: capacity with the chosen workers, and the plan’s need', () => {
    const need = loadNeed({ request_rate: 10, concurrency: null }, 128);
    const p = planCapacity({ ...probe, requests_per_s: 50, output_tokens_per_s: 6400 }, need, 2, null, LIMIT);
    expect(capacityLine(p, need, '128 output tokens, 8 streams per worker')).toBe(
      'this machine can drive ~25.0 req/s (~3200 output tokens/s) of this shape (128 output tokens, 8 streams per worker) with 1 worker; the plan needs 10.0 req/s (~1280 output tokens/s), 1 worker',
    );
  });

  it('a machine whose idle event loop is late beyond the limit cannot keep any open-loop schedule; a closed loop has none to keep', () => {
    const busy = { ...probe, idle_lag_p99_ms: 12.5 };
    const need = loadNeed({ request_rate: 5, concurrency: null }, 32);
    const p = planCapacity(busy, need, 8, null, LIMIT);
    expect(p).toMatchObject({ workers_needed: 1, busy: true, fits: false });
    expect(refusalLine(p, need, busy, LIMIT)).toBe(
      'capacity check: this machine is too busy to keep a schedule now: with no load its event loop runs a due timer 12.5 ms late (p99), and a valid run needs dispatch lag p99 ≤ 10 ms; free some cores, or run with --distributed on idle worker machines (or --allow-invalid to run anyway, --no-capacity-check to skip the check)',
    );
    // At the limit it is not busy; a closed loop is never.
    expect(planCapacity({ ...probe, idle_lag_p99_ms: 10 }, need, 8, null, LIMIT).busy).toBe(false);
    expect(planCapacity(busy, loadNeed({ request_rate: Infinity, concurrency: 8 }, 32), 8, null, LIMIT)).toMatchObject({ busy: false, fits: true });
  });

  it('a probe that saw no request finish says nothing of capacity: the machine is busy, no worker count or machine count is made up', () => {
    const starved = { ...probe, requests_per_s: 0, output_tokens_per_s: 0, duration_ms: 2000 };
    const need = { requests_per_s: 1, output_tokens_per_s: 32 };
    const p = planCapacity(starved, need, 4, null, LIMIT);
    // Not "Infinity workers" on "Infinity worker machines".
    expect(p).toMatchObject({ fits: false, busy: true, workers_needed: null, machines_needed: 1, workers: 3 });
    expect(refusalLine(p, need, starved, LIMIT)).toBe(
      'capacity check: this machine is too busy to keep a schedule now: the self-test saw no request of 8 streams finish in 2.0 s; free some cores, or run with --distributed on idle worker machines (or --allow-invalid to run anyway, --no-capacity-check to skip the check)',
    );
    expect(busyWhy({ ...probe, idle_lag_p99_ms: 30 }, LIMIT)).toBe('with no load its event loop runs a due timer 30.0 ms late (p99), and a valid run needs dispatch lag p99 ≤ 10 ms');
  });

  it('crowded: a load average above 1.5 per core over the last minute is said, and refuses nothing by itself', () => {
    expect(CONTENDED_LOAD_PER_CORE).toBe(1.5);
    const need = loadNeed({ request_rate: 10, concurrency: null }, 32);
    // Load average 17.2 on 2 cores: 8.6 per core.
    const crowded = { ...probe, load_per_core: 8.6 };
    expect(planCapacity(crowded, need, 2, null, LIMIT)).toMatchObject({ contended: true, busy: false, fits: true });
    expect(contentionPhrase(crowded, 2)).toBe('load average 17.2 on 2 cores');
    // Exactly 1.5 per core (two busy processes and a bit on 2 cores) is not crowded; unknown (Windows) never is; a closed loop has no schedule.
    expect(planCapacity({ ...probe, load_per_core: 1.5 }, need, 2, null, LIMIT).contended).toBe(false);
    expect(planCapacity({ ...probe, load_per_core: null }, need, 2, null, LIMIT).contended).toBe(false);
    expect(contentionPhrase({ ...probe, load_per_core: null }, 2)).toBe('load average unknown');
    expect(planCapacity(crowded, loadNeed({ request_rate: Infinity, concurrency: 8 }, 32), 2, null, LIMIT).contended).toBe(false);
  });
});
