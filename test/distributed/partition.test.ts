/**
 * The distributed split: N worker processes of T threads each send, together, exactly the
 * requests one process sends — same ids, same prompts, same scheduled times — and each closed-loop
 * user once. Checked against the plain oracle "request k belongs to process k mod N".
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeOf, nodeRequestCount, nodeRequestIds, nodeShard } from '../../src/distributed/partition.js';
import { globalIndex, shardCount, shardIterator, shardShare, shardWorkload } from '../../src/runner/shard.js';
import { createWorkload, WorkloadSpecSchema } from '../../src/workload/index.js';
import { sendTimes } from '../../src/load/send-times.js';
import { LoadSpecSchema } from '../../src/config/schema.js';

describe('distributed partition', () => {
  it('the threads of every process together send each request index once, process k mod N owning k', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 200 }), (n, t, total) => {
        const seen = new Map<number, number>();
        for (let node = 0; node < n; node++) {
          const mine: number[] = [];
          for (let th = 0; th < t; th++) {
            const s = nodeShard({ index: node, count: n }, th, t);
            for (let i = 0; i < shardCount(s, total); i++) {
              const id = globalIndex(s, i);
              expect(seen.has(id)).toBe(false);
              seen.set(id, node);
              mine.push(id);
            }
          }
          expect(mine.sort((a, b) => a - b)).toEqual(nodeRequestIds({ index: node, count: n }, total));
          expect(nodeRequestCount({ index: node, count: n }, total)).toBe(mine.length);
        }
        expect([...seen.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, k) => k));
        for (const [id, node] of seen) expect(node).toBe(nodeOf(id, n));
      }),
    );
  });

  it('closed-loop users: the threads of all processes hold exactly --concurrency users', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 300 }), (n, t, level) => {
        let sum = 0;
        for (let node = 0; node < n; node++) {
          let nodeSum = 0;
          for (let th = 0; th < t; th++) nodeSum += shardShare(nodeShard({ index: node, count: n }, th, t), level);
          // A process's users are its share of the whole, split again among its threads.
          expect(nodeSum).toBe(shardShare({ offset: node, step: n }, level));
          sum += nodeSum;
        }
        expect(sum).toBe(level);
      }),
    );
  });

  it('each process generates the prompts and schedule of its requests exactly as one process does', async () => {
    const wspec = WorkloadSpecSchema.parse({ random_input_len: 24, random_output_len: 8, random_range_ratio: 0.5 });
    const load = LoadSpecSchema.parse({ request_rate: 50, num_prompts: 30, seed: 11 });
    const whole = await createWorkload(wspec, { seed: 11, endpointKind: 'completions', numPrompts: 30 });
    const items = Array.from({ length: 30 }, () => whole.next());
    const times = sendTimes(load, undefined);
    const due = Array.from({ length: 30 }, () => times.next().value as number);
    const n = 3;
    const threads = 2;
    for (let node = 0; node < n; node++) {
      for (let th = 0; th < threads; th++) {
        const shard = nodeShard({ index: node, count: n }, th, threads);
        const part = shardWorkload(await createWorkload(wspec, { seed: 11, endpointKind: 'completions', numPrompts: 30 }), shard);
        const partTimes = shardIterator(sendTimes(load, undefined), shard);
        for (let i = 0; i < shardCount(shard, 30); i++) {
          const id = globalIndex(shard, i);
          expect(part.next()).toEqual(items[id]);
          expect(partTimes.next().value).toBe(due[id]);
        }
      }
    }
  });
});
