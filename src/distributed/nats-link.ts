/**
 * One connection to NATS and the run's JetStream stream: the only module that knows the client
 * library (@nats-io/transport-node, @nats-io/jetstream).
 */
import { connect, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import { UserError } from '../errors/user-error.js';
import { redactUrl } from '../util/redact.js';
import { decodeJson, encodeJson, streamNameOf, subjectsOf, type Subjects } from './protocol.js';

export type { Msg, Subscription, JsMsg };

/** A JetStream object store bucket, as much of it as the results need. */
export interface ObjectBucket {
  /** Stores `data` (a stream, so a large records file is never held whole) under `name`. */
  put(name: string, data: ReadableStream<Uint8Array>): Promise<void>;
  /** The object's bytes as a stream; null when there is no such object. */
  get(name: string): Promise<ReadableStream<Uint8Array> | null>;
  /** Every object's name and size. */
  list(): Promise<Array<{ name: string; size: number }>>;
}

/** A message from the stream: its subject, payload and sequence number. */
export interface StreamMessage {
  subject: string;
  data: Uint8Array;
  seq: number;
}

/** While NATS does not answer, a line says what is waited for after this long, then every NOTICE_EVERY_MS (a short wait stays one line). */
const FIRST_NOTICE_MS = 2_000;
const NOTICE_EVERY_MS = 10_000;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export class NatsLink {
  readonly subjects: Subjects;
  readonly stream: string;
  private readonly js: JetStreamClient;

  private constructor(
    readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    runId: string,
  ) {
    this.subjects = subjectsOf(runId);
    this.stream = streamNameOf(runId);
    this.js = jetstream(nc);
  }

  /**
   * Connects (waiting up to `waitMs` for the server to come up: pods start in any order). `log`
   * hears what is waited for after FIRST_NOTICE_MS and every NOTICE_EVERY_MS after; `signal`
   * ends the wait (a UserError saying so).
   */
  static async open(url: string, runId: string, o: { name: string; flag: string; waitMs: number; log?: (line: string) => void; signal?: AbortSignal }): Promise<NatsLink> {
    if (!/^(nats|tls):\/\/\S+$/.test(url)) throw new UserError(`${o.flag}: expected nats://HOST:PORT, got "${url}"`);
    const start = Date.now();
    const deadline = start + o.waitMs;
    let noticeAt = start + FIRST_NOTICE_MS;
    for (;;) {
      if (o.signal?.aborted) throw new UserError(`${o.flag} ${redactUrl(url)}: stopped while waiting for NATS`);
      try {
        const nc = await connect({ servers: url, name: o.name, maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 5_000 });
        try {
          return new NatsLink(nc, await jetstreamManager(nc, { timeout: 5_000 }), runId);
        } catch (err) {
          await nc.close();
          throw new UserError(`${o.flag} ${redactUrl(url)}: NATS answered but JetStream is not enabled there (start nats-server with -js): ${(err as Error).message}`);
        }
      } catch (err) {
        if (err instanceof UserError) throw err;
        const now = Date.now();
        if (now >= deadline) throw new UserError(`${o.flag} ${redactUrl(url)}: cannot connect to NATS within ${seconds(o.waitMs)} (${(err as Error).message}); is nats-server running there? (--wait sets how long to wait)`);
        if (now >= noticeAt) {
          o.log?.(`${o.flag} ${redactUrl(url)}: waiting for NATS (${(err as Error).message}), ${seconds(now - start)} of ${seconds(o.waitMs)} (--wait)`);
          noticeAt = now + NOTICE_EVERY_MS;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The run's stream (created when missing); `fresh` drops an old one first. */
  async ensureStream(): Promise<void> {
    try {
      await this.jsm.streams.info(this.stream);
      return;
    } catch {
      // Absent: create it below.
    }
    await this.jsm.streams.add({ name: this.stream, subjects: this.subjects.stream, duplicate_window: 2 * 60 * 1e9 });
  }

  async streamExists(): Promise<boolean> {
    try {
      await this.jsm.streams.info(this.stream);
      return true;
    } catch {
      return false;
    }
  }

  async deleteStream(): Promise<void> {
    try {
      await this.jsm.streams.delete(this.stream);
    } catch {
      // Already gone.
    }
  }

  /** The object store bucket `name` (file storage); created when `create`, else null when absent. */
  async bucket(name: string, create: boolean): Promise<ObjectBucket | null> {
    const objm = new Objm(this.js);
    let os: ObjectStore;
    if (create) os = await objm.create(name, { storage: StorageType.File });
    else {
      try {
        os = await objm.open(name);
      } catch {
        return null;
      }
    }
    return {
      put: async (obj, data) => {
        await os.put({ name: obj }, data);
      },
      get: async (obj) => (await os.get(obj))?.data ?? null,
      list: async () => (await os.list()).filter((i) => !i.deleted).map((i) => ({ name: i.name, size: i.size })),
    };
  }

  /** Sequence number of the stream's last message (0 when empty). */
  async lastSeq(): Promise<number> {
    return (await this.jsm.streams.info(this.stream)).state.last_seq;
  }

  /** The last message on a stream subject, decoded; null when there is none. */
  async lastOn<T>(subject: string): Promise<T | null> {
    try {
      const m = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      return m ? decodeJson<T>(m.data) : null;
    } catch {
      return null;
    }
  }

  /** Publishes to the stream with an idempotent message id; resolves once stored. True when it was a duplicate. */
  async publish(subject: string, data: Uint8Array, msgId: string, timeoutMs = 10_000): Promise<boolean> {
    const ack = await this.js.publish(subject, data, { msgID: msgId, timeout: timeoutMs });
    return ack.duplicate;
  }

  /** Every message of the stream from sequence `fromSeq` (default: the first), in order, to `onMessage` (an ordered consumer). */
  async consume(onMessage: (m: StreamMessage) => void, onBad: (err: unknown, m: StreamMessage) => void, fromSeq = 1): Promise<{ stop(): Promise<void> }> {
    const consumer = await this.js.consumers.get(this.stream, fromSeq > 1 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq } : {});
    const messages = await consumer.consume();
    const loop = (async () => {
      for await (const m of messages) {
        const msg = { subject: m.subject, data: m.data, seq: m.seq };
        try {
          onMessage(msg);
        } catch (err) {
          // One unreadable message must not end the reading of the rest.
          onBad(err, msg);
        }
      }
    })();
    return {
      stop: async () => {
        await messages.close();
        await loop.catch(() => {});
      },
    };
  }

  /** Serves request/reply on `subject`: `answer` returns the reply (JSON). */
  serve<Q, A>(subject: string, answer: (q: Q) => A): Subscription {
    return this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        let reply: A;
        try {
          reply = answer(decodeJson<Q>(msg.data));
        } catch {
          return;
        }
        msg.respond(encodeJson(reply));
      },
    });
  }

  /** Calls `onMessage` with each JSON message on `subject` (core NATS). */
  listen<T>(subject: string, onMessage: (m: T) => void): Subscription {
    return this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          onMessage(decodeJson<T>(msg.data));
        } catch {
          // A malformed message is not ours to act on.
        }
      },
    });
  }

  /** Request/reply; null when nobody answers (no responders) or no answer came in time. */
  async request<A>(subject: string, q: unknown, timeoutMs: number): Promise<A | null> {
    try {
      const m = await this.nc.request(subject, encodeJson(q), { timeout: timeoutMs });
      return decodeJson<A>(m.data);
    } catch {
      return null;
    }
  }

  broadcast(subject: string, m: unknown): void {
    this.nc.publish(subject, encodeJson(m));
  }

  /** Makes sure what was published reached the server. */
  async flush(): Promise<void> {
    await this.nc.flush();
  }

  async close(): Promise<void> {
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close().catch(() => {});
    }
  }
}
