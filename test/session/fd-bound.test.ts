/**
 * The open-file bound before t = 0 (issue 24): the descriptors a load needs, hand-computed, against
 * injected limits (never this machine's ulimit), and the refusal's one line.
 */
import { describe, expect, it } from 'vitest';
import { checkFdBound, checkRunBounds, fdNeed, FD_MARGIN } from '../../src/session/run-bounds.js';
import { RunSpecSchema, type RunSpec } from '../../src/session/run-spec.js';
import { UserError } from '../../src/errors/user-error.js';
import { parseFdLimits } from '../../src/util/fd-limit.js';
import type { Workload } from '../../src/workload/index.js';

const spec = (over: Record<string, unknown> = {}): RunSpec => RunSpecSchema.parse(over);
const workload = { lengthBounds: () => ({ prompt: 10, output: 2 }) } as unknown as Workload;
const server = { base_url: 'http://127.0.0.1:9' };

describe('parseFdLimits', () => {
  it('reads the soft and hard "Max open files" of /proc/self/limits', () => {
    const text = 'Limit                     Soft Limit           Hard Limit           Units     \nMax processes             127431               127431               processes \nMax open files            256                  4096                 files     \n';
    expect(parseFdLimits(text)).toEqual({ soft: 256, hard: 4096 });
    expect(parseFdLimits('Max open files            unlimited            unlimited            files\n')).toEqual({ soft: Infinity, hard: Infinity });
    expect(parseFdLimits('Max processes 1 1 processes\n')).toBeNull();
  });
});

describe('fdNeed', () => {
  it('a closed loop: its users, one descriptor each against a server, two against the built-in simulator (both ends in this process)', () => {
    // 400 × 1 + 64 + 8 × 1 thread = 472
    expect(fdNeed(spec({ target: server, load: { concurrency: 400, workers: 1 } }), 800)).toEqual({ connections: 400, perConnection: 1, threads: 1, descriptors: 472, flag: '--concurrency 400' });
    // 400 × 2 + 64 + 8 × 3 = 888
    expect(fdNeed(spec({ load: { concurrency: 400, workers: 3 } }), 800)?.descriptors).toBe(888);
  });
  it('an open loop: its --max-concurrency (at most its requests), every request of an all-at-once burst, else unknown', () => {
    expect(fdNeed(spec({ target: server, load: { request_rate: 5, max_concurrency: 300, workers: 1 } }), 100)).toMatchObject({ connections: 100, flag: '--max-concurrency 300' });
    expect(fdNeed(spec({ target: server, load: { workers: 1 } }), 700)).toMatchObject({ connections: 700, descriptors: 700 + FD_MARGIN.base + FD_MARGIN.perThread, flag: '--request-rate inf with 700 requests (all at once)' });
    // rate × latency, and the latency is what the run measures
    expect(fdNeed(spec({ target: server, load: { request_rate: 50, workers: 1 } }), 700)).toBeNull();
  });
});

describe('checkFdBound', () => {
  const need = fdNeed(spec({ load: { concurrency: 400, workers: 1 } }), 800); // 400 × 2 + 72 = 872
  it('admits a load within the soft limit', () => {
    expect(() => checkFdBound(need, { soft: 872, hard: 872 })).not.toThrow();
    expect(() => checkFdBound(need, null)).not.toThrow();
  });
  it('refuses one beyond it in one line naming both numbers and the ulimit to give', () => {
    let err: unknown;
    try {
      checkFdBound(need, { soft: 256, hard: 4096 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      '--concurrency 400: needs ~872 open files (400 connections × 2 (the built-in simulator serves them in this process) + 72 for files, scrapes and 1 load thread), ' +
        "beyond this process's open-file limit of 256; raise it with `ulimit -n 872` in the shell before the run (the hard limit is 4096)",
    );
  });
  it('beyond the hard limit too: says only root can raise it', () => {
    expect(() => checkFdBound(need, { soft: 256, hard: 512 })).toThrow(/; that is the hard limit too \(Node raises its soft limit to the hard one at start\): run from a shell allowed `ulimit -n 872` \(a hard limit is raised as root: .*\), or lower the load$/);
  });
});

describe('checkRunBounds', () => {
  const s = spec({ load: { concurrency: 400, workers: 1 }, output: { save: false } });
  it('checks the loads sent over sockets, and only those (virtual time opens none)', () => {
    const plan = { totalRequests: 800, workload };
    expect(() => checkRunBounds(s, plan, { held: 'objects', warn: () => {}, sockets: { specs: [s], limits: { soft: 256, hard: 4096 } } })).toThrow(/^--concurrency 400: needs ~872 open files/);
    expect(() => checkRunBounds(s, plan, { held: 'objects', warn: () => {} })).not.toThrow();
  });
  it('a sweep: the biggest stage', () => {
    const small = spec({ load: { concurrency: 10, workers: 1 }, output: { save: false } });
    const plan = { totalRequests: 800, workload };
    expect(() => checkRunBounds(small, plan, { held: 'objects', warn: () => {}, sockets: { specs: [small, s], limits: { soft: 256, hard: 4096 } } })).toThrow(/^--concurrency 400:/);
  });
});
