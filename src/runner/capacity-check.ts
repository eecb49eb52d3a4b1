/**
 * The client's capacity against the load it is asked to drive, before t = 0: the arithmetic that
 * turns a short self-test's figures (capacity-probe.ts: one load thread, saturated, against an
 * in-process stream source) and the machine's cores into how many load threads the plan needs,
 * whether this machine has them, and, when it does not, how many worker machines a distributed
 * run needs. Pure: no clock, no printing (docs/distributed.md §Does one machine suffice?).
 */

/** What one load thread did, saturated, in the self-test. */
export interface ProbeFigures {
  /** Requests per second one thread completed. */
  requests_per_s: number;
  /** Streamed output tokens per second one thread parsed. */
  output_tokens_per_s: number;
  /** Event-loop delay p99 while saturated (ms): the dispatch lag driving that load costs. */
  dispatch_lag_p99_ms: number;
  /** Event-loop delay p99 with no load at all (ms), just before: how late this machine runs a due timer now. */
  idle_lag_p99_ms: number;
  /** Streams in flight in the thread during the test, and tokens per request. */
  concurrency: number;
  output_tokens: number;
  /** How long the measured part of the test lasted (ms): longer than asked when the machine let fewer requests than streams finish in it. */
  duration_ms: number;
  /**
   * The 1-minute load average per core when the test ran (runnable and waiting tasks per core;
   * null where the OS keeps none, e.g. Windows): contention that lasts, where the idle sample is
   * a quarter of a second.
   */
  load_per_core: number | null;
}

/** What the planned load asks of the client. */
export interface LoadNeed {
  /** Requests/s the schedule sends; null when the rate is the server's (a closed loop) or unbounded (all at once). */
  requests_per_s: number | null;
  /** Output tokens/s those requests stream back (rate × mean requested output tokens); null with requests_per_s. */
  output_tokens_per_s: number | null;
}

/**
 * The share of a thread's saturated throughput it can carry and still keep its schedule: at
 * saturation every send waits for the event loop; at half of it the loop is idle half the time,
 * so a due send finds it free. A stated design choice, not a measurement.
 */
export const USABLE_SHARE = 0.5;

/**
 * Load average per core above which this machine is called contended: half again as many tasks
 * want a core as there are cores, so a thread woken for a due send waits for one. Two busy
 * processes on an otherwise idle 2-core machine are ~1 per core; the quickstarts that ended
 * INVALID were at 6.5–10 per core (docs/distributed.md §Does one machine suffice?). A stated
 * choice, not a fit.
 */
export const CONTENDED_LOAD_PER_CORE = 1.5;

export interface CapacityPlan {
  /** What one thread can drive accurately (the probe's figures × USABLE_SHARE). */
  per_worker: { requests_per_s: number; output_tokens_per_s: number };
  /** Load threads this machine can give: one per core beside the main thread (at least 1). */
  max_workers: number;
  /** Threads the plan needs; null when the need is not known before the run (closed loop, all at once). */
  workers_needed: number | null;
  /** Threads the run will use: --workers when given, else the need (at most max_workers). */
  workers: number;
  /** What `workers` threads can drive accurately. */
  capacity: { requests_per_s: number; output_tokens_per_s: number };
  /**
   * True when the machine is too busy to keep any schedule now: its idle event-loop delay p99 is
   * above the dispatch-lag limit of a valid run (an open loop at a finite rate only).
   */
  busy: boolean;
  /**
   * True when the machine has been crowded for the last minute (load_per_core above
   * CONTENDED_LOAD_PER_CORE): a schedule is likely to slip later in the run even when the idle
   * sample was quiet. Said before t = 0; it refuses nothing by itself.
   */
  contended: boolean;
  /** False when the plan needs more than `workers` threads can drive, or the machine is busy. */
  fits: boolean;
  /** Worker machines of max_workers threads each the plan needs (1 when it fits one machine). */
  machines_needed: number;
}

export function loadNeed(load: { request_rate: number; concurrency: number | null }, meanOutputTokens: number): LoadNeed {
  if (load.concurrency !== null || !Number.isFinite(load.request_rate)) return { requests_per_s: null, output_tokens_per_s: null };
  return { requests_per_s: load.request_rate, output_tokens_per_s: load.request_rate * meanOutputTokens };
}

export function maxWorkers(cores: number): number {
  return Math.max(1, Math.floor(cores) - 1);
}

/** `lagLimitMs`: the dispatch-lag p99 a valid run may have (src/analysis/run-validity.ts). */
export function planCapacity(probe: ProbeFigures, need: LoadNeed, cores: number, givenWorkers: number | null, lagLimitMs: number): CapacityPlan {
  const per = { requests_per_s: probe.requests_per_s * USABLE_SHARE, output_tokens_per_s: probe.output_tokens_per_s * USABLE_SHARE };
  const max = maxWorkers(cores);
  // A self-test that saw no request finish says nothing of capacity: the machine starved it (busy below).
  const starved = probe.requests_per_s <= 0;
  let needed: number | null = null;
  if (need.requests_per_s !== null && !starved) {
    const byRequests = per.requests_per_s > 0 ? need.requests_per_s / per.requests_per_s : Infinity;
    const byTokens = need.output_tokens_per_s !== null && need.output_tokens_per_s > 0 ? (per.output_tokens_per_s > 0 ? need.output_tokens_per_s / per.output_tokens_per_s : Infinity) : 0;
    needed = Math.max(1, Math.ceil(Math.max(byRequests, byTokens) - 1e-9));
  }
  // --workers 0 puts the load on the main thread: one thread's worth.
  const workers = givenWorkers !== null ? givenWorkers : Math.min(needed ?? max, max);
  const threads = Math.max(1, workers);
  const busy = need.requests_per_s !== null && (probe.idle_lag_p99_ms > lagLimitMs || starved);
  const contended = need.requests_per_s !== null && probe.load_per_core !== null && probe.load_per_core > CONTENDED_LOAD_PER_CORE;
  const fits = (needed === null || needed <= threads) && !busy;
  return {
    per_worker: per,
    max_workers: max,
    workers_needed: needed,
    workers,
    capacity: { requests_per_s: per.requests_per_s * threads, output_tokens_per_s: per.output_tokens_per_s * threads },
    busy,
    contended,
    fits,
    machines_needed: needed === null ? 1 : Math.max(1, Math.ceil(needed / max)),
  };
}

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(2));

/** "this machine can drive ~X req/s of this shape with N workers; the plan needs Y". */
export function capacityLine(plan: CapacityPlan, need: LoadNeed, shape: string): string {
  const threads = Math.max(1, plan.workers);
  const can = `this machine can drive ~${fmt(plan.capacity.requests_per_s)} req/s (~${fmt(plan.capacity.output_tokens_per_s)} output tokens/s) of this shape (${shape}) with ${threads} worker${threads === 1 ? '' : 's'}`;
  if (need.requests_per_s === null) return `${can}; the plan's rate is set by the server (closed loop or all at once), so it is not checked before the run`;
  return `${can}; the plan needs ${fmt(need.requests_per_s)} req/s (~${fmt(need.output_tokens_per_s ?? 0)} output tokens/s)${plan.workers_needed !== null ? `, ${plan.workers_needed} worker${plan.workers_needed === 1 ? '' : 's'}` : ''}`;
}

/** The one line of a refusal: what the plan needs, in worker machines of this one's size. */
export function refusalLine(plan: CapacityPlan, need: LoadNeed, probe: ProbeFigures, lagLimitMs: number): string {
  const tail = ' (or --allow-invalid to run anyway, --no-capacity-check to skip the check)';
  const needed = plan.workers_needed;
  // The load first: it says how many machines; a busy machine is the reason only when the load would fit.
  if (needed !== null && needed > plan.max_workers) {
    return `capacity check: the plan needs ${fmt(need.requests_per_s ?? 0)} req/s, and all ${plan.max_workers} workers of this machine can drive ~${fmt(plan.per_worker.requests_per_s * plan.max_workers)}: run it with --distributed on ${plan.machines_needed} worker machines like this one${tail}`;
  }
  if (needed !== null && needed > Math.max(1, plan.workers)) {
    return `capacity check: the plan needs ${needed} workers and --workers ${plan.workers} can drive ~${fmt(plan.capacity.requests_per_s)} of its ${fmt(need.requests_per_s ?? 0)} req/s: give --workers ${needed}${tail}`;
  }
  return `capacity check: this machine is too busy to keep a schedule now: ${busyWhy(probe, lagLimitMs)}; free some cores, or run with --distributed on idle worker machines${tail}`;
}

/** Why the machine is busy, in the test's own figures. */
export function busyWhy(probe: ProbeFigures, lagLimitMs: number): string {
  if (probe.requests_per_s <= 0) return `the self-test saw no request of ${probe.concurrency} streams finish in ${fmt(probe.duration_ms / 1000)} s`;
  return `with no load its event loop runs a due timer ${fmt(probe.idle_lag_p99_ms)} ms late (p99), and a valid run needs dispatch lag p99 ≤ ${lagLimitMs} ms`;
}

/** Contention in one phrase: "load average 17.2 on 2 cores". */
export function contentionPhrase(probe: ProbeFigures, cores: number): string {
  return probe.load_per_core === null ? 'load average unknown' : `load average ${(probe.load_per_core * cores).toFixed(1)} on ${cores} core${cores === 1 ? '' : 's'}`;
}
