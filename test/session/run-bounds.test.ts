/**
 * The bounds before t = 0 (issue 24): memory for the records a run holds, and room for
 * records.jsonl in the results folder, with hand-computed estimates and an injected free space.
 */
import { describe, expect, it } from 'vitest';
import { checkMemoryBound, checkResultsRoom, recordsFileBytes, runSize } from '../../src/session/run-bounds.js';
import { RunSpecSchema, type RunSpec } from '../../src/session/run-spec.js';
import { UserError } from '../../src/errors/user-error.js';
import type { Workload } from '../../src/workload/index.js';

const spec = (over: Record<string, unknown> = {}): RunSpec => RunSpecSchema.parse(over);
const workload = (output: number | null) => ({ lengthBounds: () => ({ prompt: 10, output }) }) as unknown as Workload;

describe('runSize', () => {
  it('a count, a rate over a duration, or unknown (closed loop by time)', () => {
    expect(runSize(spec(), { totalRequests: 500, workload: workload(64) })).toEqual({ requests: 500, outputTokens: 64 });
    // 10 req/s × 60 s = 600
    expect(runSize(spec({ load: { request_rate: 10, duration_ms: '60s' } }), { totalRequests: null, workload: workload(64) }).requests).toBe(600);
    expect(runSize(spec({ load: { concurrency: 8, duration_ms: '60s' } }), { totalRequests: null, workload: workload(64) }).requests).toBeNull();
    // A dataset without stated lengths: 256 output tokens assumed.
    expect(runSize(spec(), { totalRequests: 5, workload: workload(null) }).outputTokens).toBe(256);
  });
});

describe('checkMemoryBound', () => {
  // objects: 1,000 × (2,048 + 16 × 100) = 3,648,000 bytes
  const size = { requests: 1000, outputTokens: 100 };
  it('admits a run within the limit', () => {
    expect(() => checkMemoryBound(size, 'objects', { bytes: 3_648_000, what: 'test' })).not.toThrow();
  });
  it('refuses one beyond it in one line naming the most it could hold', () => {
    let err: unknown;
    try {
      checkMemoryBound(size, 'objects', { bytes: 3_000_000, what: 'the test limit' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    // 3,000,000 / 3,648 = 822.4
    expect((err as Error).message).toBe(
      "load: 1,000 requests of up to 100 output tokens would hold ~3 MiB of records in memory, beyond the 3 MiB this run may use (the test limit); give at most ~822 requests (--num-prompts, --duration, --request-rate), or raise Node's heap limit (NODE_OPTIONS=--max-old-space-size=MiB)",
    );
  });
  it('columns: 512 bytes a record, whatever its length', () => {
    expect(() => checkMemoryBound({ requests: 1000, outputTokens: 10_000 }, 'columns', { bytes: 512_000, what: 't' })).not.toThrow();
    expect(() => checkMemoryBound({ requests: 1001, outputTokens: 1 }, 'columns', { bytes: 512_000, what: 't' })).toThrow(/give at most ~1,000 requests \(--num-prompts, --duration, --request-rate\)$/);
  });
  it('an unknown count is not refused', () => {
    expect(() => checkMemoryBound({ requests: null, outputTokens: 100 }, 'objects', { bytes: 1, what: 't' })).not.toThrow();
  });
});

describe('checkResultsRoom (free space injected)', () => {
  // 1,000 × (400 + 12 × 100) = 1,600,000 bytes
  const size = { requests: 1000, outputTokens: 100 };
  const s = spec({ output: { result_dir: '/results' } });
  it('hand-computed file size; kept text adds 4 bytes a token', () => {
    expect(recordsFileBytes(size, false)).toBe(1_600_000);
    expect(recordsFileBytes(size, true)).toBe(2_000_000);
  });
  it('refuses when the estimate exceeds the free space, naming the folder, both sizes and the ways out', () => {
    const warn: string[] = [];
    expect(() => checkResultsRoom(s, size, (l) => warn.push(l), () => 1_000_000)).toThrow(
      new UserError('--result-dir /results: records.jsonl of 1,000 requests: ~2 MiB (estimated), but only 977 KiB is free there; free space, give another --result-dir, fewer requests, or --no-save'),
    );
    expect(warn).toEqual([]);
  });
  it('warns when it would take more than half of it, and is quiet below', () => {
    const warn: string[] = [];
    checkResultsRoom(s, size, (l) => warn.push(l), () => 3_000_000);
    expect(warn).toEqual(['results: records.jsonl of 1,000 requests: ~2 MiB (estimated), more than half of the 3 MiB free in /results']);
    checkResultsRoom(s, size, (l) => warn.push(l), () => 3_200_000);
    expect(warn).toHaveLength(1);
  });
  it('nothing is checked with --no-save or when the file system does not say', () => {
    expect(() => checkResultsRoom(spec({ output: { save: false } }), size, () => {}, () => 0)).not.toThrow();
    expect(() => checkResultsRoom(s, size, () => {}, () => null)).not.toThrow();
  });
});
