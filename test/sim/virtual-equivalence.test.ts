/**
 * The streaming virtual-time driver (requests read as the clock reaches them, records handed
 * over as they finish) against the driver it replaced, kept verbatim as the oracle in
 * fixtures/virtual-reference.ts: for the same requests the records are equal field for field —
 * every sent, first-token, chunk and end time — in every mode the driver has.
 */
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { createRng } from '../../src/util/rng.js';
import { runVirtual, type VirtualOptions, type VirtualRequest } from '../../src/sim/virtual.js';
import { StepTimeline } from '../../src/sim/step-timeline.js';
import { runVirtualReference } from './fixtures/virtual-reference.js';

/** Poisson arrivals at `rate` req/s, lengths uniform around the given means, some sharing prefixes. */
function requests(seed: number, n: number, rate: number, prompt: number, output: number, opts: { tooLong?: boolean } = {}): VirtualRequest[] {
  const rng = createRng(seed);
  let t = 0;
  const out: VirtualRequest[] = [];
  for (let i = 0; i < n; i++) {
    t += -Math.log(1 - rng.next()) * (1000 / rate);
    const p = opts.tooLong && i % 17 === 5 ? 200_000 : rng.int(Math.floor(prompt / 2), prompt * 2);
    const group = rng.int(0, 3);
    out.push({ id: i, scheduled_ms: t, prompt_tokens: p, max_tokens: rng.int(1, output * 2), ...(i % 3 === 0 ? { prefix_hash_ids: [group, group + 10, group + 20, i + 100] } : {}) });
  }
  return out;
}

type Mode = Omit<VirtualOptions, 'requests'>;

function both(reqs: VirtualRequest[], mode: Mode): { ref: RequestRecord[]; streamed: RequestRecord[]; kept: RequestRecord[] } {
  const ref = runVirtualReference({ ...mode, requests: reqs });
  const kept = runVirtual({ ...mode, requests: reqs });
  const streamed: RequestRecord[] = [];
  const lazy = runVirtual({ ...mode, requests: reqs, inOrder: mode.closedLoopConcurrency === undefined, onRecord: (r) => streamed.push(r), timeline: new StepTimeline() });
  expect(lazy.records).toEqual([]);
  const { wall_ms: _a, ...refStats } = ref.stats;
  const { wall_ms: _b, ...keptStats } = kept.stats;
  const { wall_ms: _c, ...lazyStats } = lazy.stats;
  expect(keptStats).toEqual(refStats);
  expect(lazyStats).toEqual(refStats);
  return { ref: ref.records, streamed, kept: kept.records };
}

const byId = (rs: RequestRecord[]) => [...rs].sort((a, b) => a.id - b.id);

describe('virtual time: the streaming driver keeps the ground truth of the driver it replaced', () => {
  const cases: Array<[string, VirtualRequest[], Mode]> = [
    ['open loop, 20 req/s', requests(1, 400, 20, 512, 128), {}],
    ['open loop with --max-concurrency 8', requests(2, 300, 40, 256, 64), { maxConcurrency: 8 }],
    ['a small KV cache: preemptions and prefix hits', requests(3, 300, 60, 1024, 256), { engine: { num_gpu_blocks: 600, enable_prefix_caching: true } }],
    ['requests too long for the model are rejected in place', requests(4, 200, 30, 256, 64, { tooLong: true }), {}],
    ['reasoning mode', requests(5, 200, 20, 256, 128), { reasoning: { tokens: 20 } }],
    ['closed loop, 16 users', requests(6, 300, 20, 512, 96), { closedLoopConcurrency: 16 }],
    ['closed loop with users starting and stopping (ramps)', requests(7, 300, 20, 512, 96), { closedLoopConcurrency: 12, closedLoopUsers: (k) => ({ start_ms: k * 150, stop_ms: 4000 + k * 300 }) }],
  ];
  for (const [name, reqs, mode] of cases) {
    it(name, () => {
      const { ref, streamed, kept } = both(reqs, mode);
      expect(ref.length).toBeGreaterThan(0);
      expect(kept).toEqual(ref);
      expect(byId(streamed)).toEqual(byId(ref));
    });
  }

  it('the cases exercise what they claim: preemptions, rejections, reasoning, holds', () => {
    const pre = runVirtualReference({ requests: cases[2]![1], ...cases[2]![2] });
    expect(pre.stats.preemptions).toBeGreaterThan(0);
    expect(pre.stats.prefix_hits).toBeGreaterThan(0);
    expect(runVirtualReference({ requests: cases[3]![1] }).stats.rejected).toBeGreaterThan(0);
    expect(runVirtualReference({ requests: cases[4]![1], ...cases[4]![2] }).records.some((r) => (r.reasoning_tokens ?? 0) > 0)).toBe(true);
    expect(runVirtualReference({ requests: cases[1]![1], ...cases[1]![2] }).records.some((r) => r.sent_ms > r.scheduled_ms)).toBe(true);
  });

  it('the timeline holds every chunk time, strictly increasing', () => {
    const timeline = new StepTimeline();
    const recs: RequestRecord[] = [];
    runVirtual({ requests: requests(8, 200, 30, 512, 64), inOrder: true, onRecord: (r) => recs.push(r), timeline });
    for (let i = 1; i < timeline.length; i++) expect(timeline.at(i)).toBeGreaterThan(timeline.at(i - 1));
    for (const r of recs) for (const t of r.chunk_ms) expect(timeline.at(timeline.indexOf(t))).toBe(t);
  });
});
