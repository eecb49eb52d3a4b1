/**
 * What the coordinator broadcasts on core NATS (a sweep stage's announcement, a stage's start)
 * reaches only the workers subscribed at that moment, and a subscriber can miss a message (a
 * reconnect, a slow consumer). Two hangs came from that, both reproduced here at the exact point
 * of the race over a real nats-server, coordinator and workers in this process:
 *
 * - the `--auto` sweep's baseline runs on 1 of 3 workers. The last worker to join subscribed to
 *   the broadcasts only once its hello was answered; the coordinator announced stage 1 at once
 *   and repeated it only until worker 0 was ready, so that worker never heard of stage 1, gave
 *   up after its --wait, and the coordinator then waited --worker-timeout for its heartbeats;
 * - a worker that reported ready and lost the start waited for ever, and its heartbeats kept
 *   the coordinator waiting for its records.
 *
 * A worker now subscribes before its hello, asks the coordinator for what it waits for when it
 * has not heard it for a second, and gives up (a clear error) only once the coordinator has
 * stopped answering for its --wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coordinator } from '../../src/distributed/coordinator.js';
import { NatsLink } from '../../src/distributed/nats-link.js';
import type { Control, ControlReply, TargetInfo } from '../../src/distributed/protocol.js';
import { WorkerSession } from '../../src/distributed/worker-session.js';
import { UserError } from '../../src/errors/user-error.js';
import { startNats, type NatsServer } from '../helpers/nats.js';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.close();
});

const target: TargetInfo = { base_url: 'http://127.0.0.1:1', model: 'm', token_scale: 1, ignore_eos: true, prompt_salt: null };
const open = (runId: string, name: string) => NatsLink.open(nats.url, runId, { name, flag: '--nats', waitMs: 10_000 });

/** A worker link that never delivers a broadcast of type `lose`, and keeps the coordinator's answers to its asks. */
function losing(link: NatsLink, lose: Control['type'] | null): { dropped: number; answers: ControlReply[] } {
  const seen = { dropped: 0, answers: [] as ControlReply[] };
  const listen = link.listen.bind(link);
  link.listen = <T>(subject: string, onMessage: (m: T) => void) =>
    listen<T>(subject, (m) => {
      if (subject === link.subjects.control && (m as Control).type === lose) {
        seen.dropped++;
        return;
      }
      onMessage(m);
    });
  const request = link.request.bind(link);
  link.request = async <A>(subject: string, q: unknown, timeoutMs: number) => {
    const a = await request<A>(subject, q, timeoutMs);
    if (subject === link.subjects.ask && a) seen.answers.push(a as unknown as ControlReply);
    return a;
  };
  return seen;
}

async function setUp(runId: string, waitMs: number) {
  const clink = await open(runId, 'coordinator');
  await clink.ensureStream();
  const coord = new Coordinator({ link: clink, runId, workers: 1, specHash: 'h', version: 'v', log: () => {} });
  const barrier = coord.barrier(target, 60_000);
  const wlink = await open(runId, 'worker 0');
  const seen = losing(wlink, 'start');
  const session = await WorkerSession.join(wlink, { node: 0, specHash: 'h', stageHash: 'h', version: 'v', threads: 0, waitMs, log: () => {}, onAbort: () => {} });
  return { clink, coord, barrier, wlink, seen, session };
}

describe('a start broadcast the worker never hears', () => {
  it('the worker asks for it and starts at the broadcast start time', async () => {
    const { clink, coord, barrier, wlink, seen, session } = await setUp('start-lost', 60_000);
    try {
      const started = session.readyAndWaitForStart(0);
      const [ready] = await barrier;
      expect(ready?.node).toBe(0);
      const startAt = await coord.start(0, 100);
      // Before the fix this never resolved (the test timed out): the start was broadcast once.
      await started;
      expect(session.aborted).toBeNull();
      expect(seen.dropped).toBe(1);
      expect(seen.answers.filter((a) => a.start_at_ms !== null).map((a) => a.start_at_ms)).toEqual([startAt]);
    } finally {
      session.close();
      coord.close();
      await clink.deleteStream();
      await wlink.close();
      await clink.close();
    }
  }, 60_000);

  it('a coordinator gone after the ready report: the worker gives up after --wait with a clear error', async () => {
    const { clink, coord, barrier, wlink, session } = await setUp('start-gone', 1_500);
    try {
      const started = session.readyAndWaitForStart(0).then(
        () => null,
        (err: unknown) => err,
      );
      await barrier;
      // The coordinator stops answering before any start.
      coord.close();
      const err = await started;
      expect(err).toBeInstanceOf(UserError);
      expect((err as Error).message).toBe('worker 0: no start, and the coordinator has not answered for 1.5 s (--wait): it is gone');
    } finally {
      session.close();
      await clink.deleteStream();
      await wlink.close();
      await clink.close();
    }
  }, 60_000);
});

describe('a sweep stage announced while its last worker is still joining', () => {
  it('the worker with no share in it hears of it (it was subscribed before its hello), then of the end', async () => {
    const runId = 'stage-early';
    const clink = await open(runId, 'coordinator');
    await clink.ensureStream();
    const coord = new Coordinator({ link: clink, runId, workers: 2, specHash: 'h', sweep: true, version: 'v', log: () => {} });
    const barrier = coord.barrier(target, 60_000);
    const join = (link: NatsLink, node: number) => WorkerSession.join(link, { node, specHash: 'h', stageHash: 'h', version: 'v', threads: 0, waitMs: 3_000, log: () => {}, onAbort: () => {} });
    const w0link = await open(runId, 'worker 0');
    const w1link = await open(runId, 'worker 1');
    // Worker 1's process is held right after the coordinator answered its hello: the point where
    // it used to subscribe to the broadcasts.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const request = w1link.request.bind(w1link);
    w1link.request = async <A>(subject: string, q: unknown, timeoutMs: number) => {
      const a = await request<A>(subject, q, timeoutMs);
      if (subject === w1link.subjects.hello) await held;
      return a;
    };
    const s0 = await join(w0link, 0);
    const joining1 = join(w1link, 1);
    let s1: WorkerSession | null = null;
    try {
      await barrier;
      // Stage 1 is worker 0's alone (a 1-user baseline): announced until worker 0 is ready, then started.
      const ready = coord.stageReady({ type: 'stage', stage: 0, load: { kind: 'concurrency', concurrency: 1 }, nodes: [0] }, 60_000, 60_000);
      expect((await s0.nextStage(0))?.nodes).toEqual([0]);
      const started0 = s0.readyAndWaitForStart(0);
      await ready;
      await coord.start(0, 10);
      await started0;
      release();
      s1 = await joining1;
      // Before the fix: null never came and this threw after the worker's --wait (3 s here).
      expect((await s1.nextStage(0))?.nodes).toEqual([0]);
      await coord.end();
      expect(await s1.nextStage(1)).toBeNull();
    } finally {
      release();
      s0.close();
      s1?.close();
      coord.close();
      await clink.deleteStream();
      await w0link.close();
      await w1link.close();
      await clink.close();
    }
  }, 60_000);

  it('a stage announcement the worker lost: it asks, and learns of the stage and of the end', async () => {
    const runId = 'stage-lost';
    const clink = await open(runId, 'coordinator');
    await clink.ensureStream();
    const coord = new Coordinator({ link: clink, runId, workers: 1, specHash: 'h', sweep: true, version: 'v', log: () => {} });
    const barrier = coord.barrier(target, 60_000);
    const wlink = await open(runId, 'worker 0');
    const seen = losing(wlink, 'stage');
    const s = await WorkerSession.join(wlink, { node: 0, specHash: 'h', stageHash: 'h', version: 'v', threads: 0, waitMs: 60_000, log: () => {}, onAbort: () => {} });
    try {
      await barrier;
      const ready = coord.stageReady({ type: 'stage', stage: 0, load: { kind: 'rate', rate: 5 }, nodes: [0] }, 60_000, 60_000);
      expect(await s.nextStage(0)).toEqual({ type: 'stage', stage: 0, load: { kind: 'rate', rate: 5 }, nodes: [0] });
      const started = s.readyAndWaitForStart(0);
      await ready;
      await coord.start(0, 10);
      await started;
      expect(seen.dropped).toBeGreaterThanOrEqual(1);
      expect(seen.answers.some((a) => a.stage?.stage === 0)).toBe(true);
      await coord.end();
      expect(await s.nextStage(1)).toBeNull();
    } finally {
      s.close();
      coord.close();
      await clink.deleteStream();
      await wlink.close();
      await clink.close();
    }
  }, 60_000);
});
