/**
 * What coordinator and workers say to each other over NATS (docs/distributed.md §Protocol).
 *
 * Core NATS request/reply for the start barrier (hello, clock, ready) and core publish for the
 * control broadcast and heartbeats; a JetStream stream for everything that must survive a
 * coordinator restart: records, each worker's end of run, and the run's state. Subjects live under
 * `infermeter.<run id>.`; the stream captures only its own subjects, so JetStream never answers a
 * barrier request with a publish acknowledgement.
 */
import type { ProgressSnapshot } from '../runner/progress.js';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';

/** Bumped when a message changes shape: coordinator and workers must agree. */
export const PROTOCOL_VERSION = 4;

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A run id is a NATS subject token and part of a stream name. */
export function checkRunId(id: string, flag = '--run-id'): string {
  if (!RUN_ID.test(id)) throw new UserError(`${flag}: "${id}" must be 1–64 letters, digits, "-" or "_"`);
  return id;
}

export interface Subjects {
  hello: string;
  clock: string;
  ready: string;
  /** Request/reply: a worker waiting for a stage's announcement or start asks for it (a broadcast it missed). */
  ask: string;
  control: string;
  beat: string;
  /** Stream subjects. */
  records(node: number): string;
  done(node: number): string;
  lag(node: number): string;
  state: string;
  /** What the stream captures. */
  stream: string[];
}

export function subjectsOf(runId: string): Subjects {
  const p = `infermeter.${runId}`;
  return {
    hello: `${p}.hello`,
    clock: `${p}.clock`,
    ready: `${p}.ready`,
    ask: `${p}.ask`,
    control: `${p}.control`,
    beat: `${p}.beat`,
    records: (n) => `${p}.rec.${n}`,
    done: (n) => `${p}.done.${n}`,
    lag: (n) => `${p}.lag.${n}`,
    state: `${p}.state`,
    stream: [`${p}.rec.*`, `${p}.done.*`, `${p}.lag.*`, `${p}.state`],
  };
}

export function streamNameOf(runId: string): string {
  return `INFERMETER_${runId}`;
}

/**
 * The idempotent message id of a record: worker, request, attempt (and the sweep stage). A
 * publish retried after a lost acknowledgement carries the same id, and JetStream keeps one copy.
 */
export function recordKey(node: number, rec: Pick<RequestRecord, 'id' | 'stage' | 'attempt'>): string {
  return `${node}:${rec.stage}:${rec.id}:${rec.attempt ?? 0}`;
}

/** Worker → coordinator, first: who it is and what it would run. */
export interface Hello {
  protocol: number;
  node: number;
  spec_hash: string;
  /** The hash with the load's rate and concurrency left out: what a sweep's stages share (each stage's load comes from the coordinator). */
  stage_hash: string;
  version: string;
  host: string;
  threads: number;
  /**
   * The worker's client host as result.json records it (analysis/environment.ts ClientFingerprint:
   * CPU, cores, OS, Node, infermeter version, git commit); null when it could not be read (protocol 4).
   */
  client: WorkerHostFingerprint | null;
}

/** A ClientFingerprint as it travels: flat fields, kept opaque here (the session layer owns its shape). */
export type WorkerHostFingerprint = Record<string, string | number | null>;

/** What every worker needs from the coordinator to send the same requests to the same server. */
export interface TargetInfo {
  base_url: string;
  model: string;
  /** Server tokens per estimated token (the coordinator's pre-flight calibration). */
  token_scale: number;
  ignore_eos: boolean;
  /** The run's prompt salt (null: none), chosen once by the coordinator. */
  prompt_salt: string | null;
}

export type HelloReply =
  | {
      ok: true;
      run_id: string;
      workers: number;
      target: TargetInfo;
      sweep: boolean;
      /** This coordinator process's id: a restarted coordinator has another (protocol 3). */
      session: string;
    }
  | { ok: false; reason: string };

/** Worker → coordinator, once its workload is built and connections are open. */
export interface Ready {
  node: number;
  /** The stage it is ready for (0 in a run). */
  stage: number;
  clock: ClockEstimate;
  /** The coordinator session it joined (HelloReply.session). */
  session: string;
}

/**
 * Worker → coordinator, while it waits for stage `stage`'s announcement or start. Both are
 * broadcast on core NATS, which drops a message a subscriber misses (a reconnect, a slow consumer,
 * interest not yet spread through a cluster), and neither is repeated once the stage's workers
 * are ready; so a worker that has not heard what it waits for asks, once a second.
 */
export interface ControlQuery {
  node: number;
  stage: number;
  session: string;
}

/** What the coordinator has said about a stage so far (null: not yet). */
export interface ControlReply {
  /** A sweep stage's announcement. */
  stage: Extract<Control, { type: 'stage' }> | null;
  /** Its start time (epoch ms, the coordinator's clock). */
  start_at_ms: number | null;
  /** The sweep is over. */
  ended: boolean;
  /** The answering coordinator's session: another than the worker joined means it was restarted. */
  session: string;
}

/** A sweep stage's load, as the coordinator announces it (rate "inf": all at once). */
export type StageLoadMessage = { kind: 'rate'; rate: number | 'inf' } | { kind: 'concurrency'; concurrency: number };

/** Coordinator clock − worker clock (ms, epoch), from the request/reply of least round trip. */
export interface ClockEstimate {
  offset_ms: number;
  rtt_ms: number;
  samples: number;
}

export type Control =
  /** Start stage `stage` (0 in a run) at this time on the coordinator's clock (epoch ms). */
  | { type: 'start'; stage: number; start_at_ms: number }
  /**
   * A sweep's next stage: its load, and the workers sharing it (share k of the stage goes to
   * nodes[k]; a worker lost in an earlier stage is left out). Repeated until every one is ready.
   */
  | { type: 'stage'; stage: number; load: StageLoadMessage; nodes: number[] }
  /** A sweep stage that can no longer meet an SLO: stop sending it (in-flight requests are cancelled) and report done. */
  | { type: 'stop'; stage: number; reason: string }
  /** The sweep is over: workers exit. */
  | { type: 'end' }
  /** Stop: before the start nothing is sent; after it in-flight requests are cancelled. `nodes` null: everyone. */
  | { type: 'abort'; reason: string; nodes: number[] | null };

/** Worker → coordinator, once a second: alive, and how far it got (its load's progress snapshot). */
export interface Beat extends ProgressSnapshot {
  node: number;
  lag_max_ms: number | null;
  busy: number | null;
}

/** Worker → stream, after its last record: what it sent and how its client fared. */
export interface Done {
  node: number;
  /** The stage it ran (0 in a run). */
  stage: number;
  /** Records this worker published (every attempt). */
  records: number;
  interrupted: boolean;
  /** Messages on lag.<node> holding its dispatch lateness, in order. */
  lag_chunks: number;
  event_loop_delay_p99_ms: number | null;
  event_loop_utilization: number;
  stale_socket_retries: number;
  preconnected: number;
  threads: number;
  host: string;
  clock: ClockEstimate;
  /** The worker stopped on its own (an error): the message; null when it ran to the end. */
  error: string | null;
}

/** Coordinator → stream, at the start: enough for a restarted coordinator to resume. */
export interface RunState {
  /** A sweep is not resumed by a restarted coordinator (absent: a run, as written by protocol 1). */
  kind?: 'run' | 'sweep';
  spec_hash: string;
  workers: number;
  start_at_ms: number;
  started_at: string;
  run_dir: string | null;
  target: TargetInfo;
  /** result.json's target section. */
  describe: Record<string, unknown>;
  nodes: Array<{ node: number; host: string; threads: number; clock: ClockEstimate; client?: WorkerHostFingerprint | null }>;
}

/** Dispatch-lag values per lag message: well under NATS's default 1 MiB payload. */
export const LAG_CHUNK = 20_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeJson = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));
export const decodeJson = <T>(data: Uint8Array): T => JSON.parse(decoder.decode(data)) as T;
export const decodeText = (data: Uint8Array): string => decoder.decode(data);
export const encodeText = (s: string): Uint8Array => encoder.encode(s);
