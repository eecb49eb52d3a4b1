/**
 * Bounds checked before t = 0 (issue 24), from the run's size — requests × output tokens — so a
 * run that cannot finish is refused in one line instead of exhausting the machine hours in:
 * - memory: the records a run holds until its figures are computed (`run`, `sim sweep`: record
 *   objects on the JS heap, ~8 bytes per chunk time; `sim run`: typed columns off the heap);
 * - disk: records.jsonl in the results folder, against the folder's free space;
 * - open files: the connections the load holds at once, against the soft RLIMIT_NOFILE.
 * Both are estimates from per-record and per-token costs (docs/cli.md §Bounds states them and
 * how they were measured); a run the estimate admits may still meet a full disk, which is then a
 * disk fault (exit 6, store/records-file.ts).
 */
import { availableParallelism, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { UserError } from '../errors/user-error.js';
import { freeSpace } from '../store/free-space.js';
import { fdLimits, type FdLimits } from '../util/fd-limit.js';
import type { PreparedRun } from './prepare-run.js';
import type { RunSpec } from './run-spec.js';

/** How a run holds its records until the figures: JS objects (run, sweeps) or typed columns (sim run). */
export type HeldAs = 'objects' | 'columns';

/** Output tokens assumed per request when the workload states no bound (a dataset file). */
const UNKNOWN_OUTPUT_TOKENS = 256;

/** Per-record and per-token bytes held in memory (upper estimates of docs/performance.md §5 and §7). */
export const MEMORY_COST: Record<HeldAs, { perRecord: number; perToken: number }> = {
  objects: { perRecord: 2048, perToken: 16 },
  columns: { perRecord: 512, perToken: 0 },
};
/** Bytes of records.jsonl per record and per output token (the same sections' files); kept text adds ~4 per token. */
export const FILE_COST = { perRecord: 400, perToken: 12, perTextToken: 4 } as const;

/** Shares of the limit the records may take: the rest is the process's own (the heap's young generation, buffers). */
const HEAP_SHARE = 0.75;
const MEMORY_SHARE = 0.5;

export interface RunSize {
  /** Requests the run will send (a count, a trace, or rate × duration); null when it cannot be known (closed loop by time). */
  requests: number | null;
  /** Output tokens of the longest request the workload asks for. */
  outputTokens: number;
}

/** The run's size as far as it is known before t = 0. */
export function runSize(spec: RunSpec, plan: Pick<PreparedRun, 'totalRequests' | 'workload'>): RunSize {
  const load = spec.load;
  let requests = plan.totalRequests;
  if (requests === null && load.duration_ms !== null && load.concurrency === null && Number.isFinite(load.request_rate)) {
    requests = Math.ceil((load.request_rate * load.duration_ms) / 1000);
  }
  return { requests, outputTokens: plan.workload.lengthBounds?.().output ?? UNKNOWN_OUTPUT_TOKENS };
}

export interface MemoryLimit {
  bytes: number;
  /** What bounds it, for the message. */
  what: string;
}

/** What this process may hold: Node's heap limit for record objects, the machine's (or cgroup's) memory for columns. */
export function memoryLimit(held: HeldAs): MemoryLimit {
  if (held === 'objects') return { bytes: getHeapStatistics().heap_size_limit * HEAP_SHARE, what: `${pct(HEAP_SHARE)} of Node's heap limit` };
  // process.constrainedMemory: the cgroup's limit (Node ≥ 19.6); a huge number or 0 when there is none.
  const cgroup = (process as { constrainedMemory?: () => number }).constrainedMemory?.() ?? 0;
  const machine = totalmem();
  const bytes = (cgroup > 0 && cgroup < machine ? cgroup : machine) * MEMORY_SHARE;
  return { bytes, what: `${pct(MEMORY_SHARE)} of this machine's memory` };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const gib = (b: number): string => (b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1)} GiB` : b >= 2 ** 20 ? `${Math.round(b / 2 ** 20)} MiB` : `${Math.round(b / 2 ** 10)} KiB`);
const count = (n: number): string => n.toLocaleString('en-US');

/** Refuses (UserError) a run whose records would not fit in memory; `limit` is given by tests. */
export function checkMemoryBound(size: RunSize, held: HeldAs, limit: MemoryLimit = memoryLimit(held)): void {
  if (size.requests === null) return;
  const c = MEMORY_COST[held];
  const bytes = size.requests * (c.perRecord + c.perToken * size.outputTokens);
  if (bytes <= limit.bytes) return;
  const most = Math.floor(limit.bytes / (c.perRecord + c.perToken * size.outputTokens));
  const heap = held === 'objects' ? `, or raise Node's heap limit (NODE_OPTIONS=--max-old-space-size=MiB)` : '';
  throw new UserError(
    `load: ${count(size.requests)} requests of up to ${count(size.outputTokens)} output tokens would hold ~${gib(bytes)} of records in memory, beyond the ${gib(limit.bytes)} this run may use (${limit.what}); ` +
      `give at most ~${count(most)} requests (--num-prompts, --duration, --request-rate)${heap}`,
  );
}

/** records.jsonl's estimated size. */
export function recordsFileBytes(size: RunSize, keepText: boolean): number | null {
  if (size.requests === null) return null;
  const perToken = FILE_COST.perToken + (keepText ? FILE_COST.perTextToken : 0);
  return size.requests * (FILE_COST.perRecord + perToken * size.outputTokens);
}

/**
 * Before t = 0: refuses (UserError) a saved run whose records.jsonl would not fit in the free
 * space of the results folder, and warns when it would take more than half of it. `free` (bytes
 * free at a path, null when unknown) is given by tests.
 */
export function checkResultsRoom(spec: RunSpec, size: RunSize, warn: (line: string) => void, free: (dir: string) => number | null = freeSpace): void {
  if (!spec.output.save) return;
  const bytes = recordsFileBytes(size, spec.output.keep_text);
  if (bytes === null) return;
  const dir = spec.output.result_dir;
  const room = free(dir);
  if (room === null) return;
  const what = `records.jsonl of ${count(size.requests!)} requests: ~${gib(bytes)} (estimated)`;
  if (bytes > room) {
    throw new UserError(`--result-dir ${dir}: ${what}, but only ${gib(room)} is free there; free space, give another --result-dir, fewer requests, or --no-save`);
  }
  if (bytes > room / 2) warn(`results: ${what}, more than half of the ${gib(room)} free in ${dir}`);
}

/**
 * The bounds, as `run`, `sim run`, sweeps and the coordinators check them before t = 0. `stages`:
 * a sweep holds one stage's records at a time but writes every stage's into one records.jsonl.
 * `sockets`: the loads this process sends over HTTP (a sweep's stage specs), for the open-file bound.
 */
export function checkRunBounds(
  spec: RunSpec,
  plan: Pick<PreparedRun, 'totalRequests' | 'workload'>,
  o: { held: HeldAs; warn: (line: string) => void; stages?: number; freeSpace?: ((dir: string) => number | null) | undefined; sockets?: { specs: readonly RunSpec[]; limits?: FdLimits | null | undefined } },
): void {
  const size = runSize(spec, plan);
  // Only loads sent over sockets (virtual time opens none); a sweep's peak is its biggest stage's.
  if (o.sockets) {
    const needs = o.sockets.specs.map((s) => fdNeed(s, plan.totalRequests)).filter((n) => n !== null);
    const peak = needs.reduce<FdNeed | null>((a, b) => (a === null || b.descriptors > a.descriptors ? b : a), null);
    checkFdBound(peak, o.sockets.limits === undefined ? fdLimits() : o.sockets.limits);
  }
  checkMemoryBound(size, o.held);
  const stages = o.stages ?? 1;
  checkResultsRoom(spec, { ...size, requests: size.requests === null ? null : size.requests * stages }, o.warn, o.freeSpace ?? freeSpace);
}

/**
 * Open files a run holds besides its connections: stdio, records.jsonl and the run directory's
 * files, /metrics scrapes, the OTLP receiver, Node's own (its event loop, the inspector, the
 * thread pool) — and a few per load thread (each worker has its own event loop).
 */
export const FD_MARGIN = { base: 64, perThread: 8 } as const;

export interface FdNeed {
  /** Connections open at once: the closed loop's users, the open loop's cap, or every request of an all-at-once burst. */
  connections: number;
  /** 2 when the built-in simulator serves them in this process (its end of each connection is a descriptor too). */
  perConnection: 1 | 2;
  /** The load threads the margin counts. */
  threads: number;
  /** connections × perConnection + the margin. */
  descriptors: number;
  /** The flag that sets `connections`, for the message. */
  flag: string;
}

/**
 * The descriptors `spec`'s load needs at its peak, or null when it cannot be known before t = 0:
 * an open loop at a finite rate without --max-concurrency keeps rate × latency requests in
 * flight, and the latency is what the run measures (not checked; such a run meeting the limit
 * records its failures as `client_limit`, docs/records.md).
 */
export function fdNeed(spec: RunSpec, totalRequests: number | null): FdNeed | null {
  const load = spec.load;
  const n = totalRequests ?? Infinity;
  let connections: number;
  let flag: string;
  if (load.concurrency !== null) [connections, flag] = [load.concurrency, `--concurrency ${load.concurrency}`];
  else if (load.max_concurrency !== null) [connections, flag] = [Math.min(load.max_concurrency, n), `--max-concurrency ${load.max_concurrency}`];
  else if (!Number.isFinite(load.request_rate) && Number.isFinite(n)) [connections, flag] = [n, `--request-rate inf with ${n} requests (all at once)`];
  else return null;
  const perConnection = spec.target.base_url === null ? 2 : 1;
  const threads = Math.max(1, load.workers ?? availableParallelism() - 1);
  return { connections, perConnection, threads, flag, descriptors: connections * perConnection + FD_MARGIN.base + FD_MARGIN.perThread * threads };
}

/**
 * Refuses (UserError) a load that needs more descriptors than the soft open-file limit: past it
 * every connect() fails with EMFILE, and the run would measure its own client. Node already raises
 * its soft limit to the hard one at start (so the two are usually equal here) and cannot raise the
 * hard one, so the line gives the shell command. `limits` is given by tests (null: unknown, not checked).
 */
export function checkFdBound(need: FdNeed | null, limits: FdLimits | null = fdLimits()): void {
  if (need === null || limits === null || need.descriptors <= limits.soft) return;
  const serverSide = need.perConnection === 2 ? ' × 2 (the built-in simulator serves them in this process)' : '';
  const hard = limits.hard === Infinity ? 'unlimited' : String(limits.hard);
  const fix =
    need.descriptors <= limits.hard
      ? `raise it with \`ulimit -n ${need.descriptors}\` in the shell before the run (the hard limit is ${hard})`
      : `that is the hard limit too (Node raises its soft limit to the hard one at start): run from a shell allowed \`ulimit -n ${need.descriptors}\` (a hard limit is raised as root: limits.conf, systemd LimitNOFILE, docker --ulimit nofile=${need.descriptors}), or lower the load`;
  throw new UserError(
    `${need.flag}: needs ~${count(need.descriptors)} open files (${count(need.connections)} connections${serverSide} + ${FD_MARGIN.base + FD_MARGIN.perThread * need.threads} for files, scrapes and ${need.threads} load thread${need.threads === 1 ? '' : 's'}), ` +
      `beyond this process's open-file limit of ${count(limits.soft)}; ${fix}`,
  );
}
