/**
 * The shared step timeline found in records read back (record/shared-timeline.ts, chunk-store.ts
 * shareTimeline): hand-made cases, properties against the definition (a record found is exactly
 * its stretch; pure stretches of one timeline are all found), the records and figures of a run
 * read with and without it, and a real virtual run.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/index.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { plainRecord } from '../../src/record/record-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { findSharedTimeline, orderByKey } from '../../src/record/shared-timeline.js';
import { stepStretchOf } from '../../src/record/step-stretch.js';
import { loadColumnsFile } from '../../src/store/records-columns-file.js';
import { readRecordColumns, readRecordsFile } from '../../src/store/records-reader.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** findSharedTimeline over records given as their µs lists. */
function find(lists: number[][]) {
  return findSharedTimeline({
    n: lists.length,
    firstMicros: (c) => lists[c]![0]!,
    count: (c) => lists[c]!.length,
    decodeMicros: (c, out) => out.set(lists[c]!),
  });
}

/** A strictly increasing list of whole µs. */
const timelineArb = fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 3, maxLength: 60 }).map((gaps) => {
  let t = 1000;
  return gaps.map((g) => (t += g));
});

describe('orderByKey', () => {
  it('is the stable sort of the indices by their keys (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double({ min: -1e12, max: 1e12, noNaN: true })), { maxLength: 200 }), (keys) => {
        const want = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
        expect([...orderByKey(keys.length, (i) => keys[i]!)]).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});

describe('findSharedTimeline', () => {
  it('finds the stretches of a hand-made run and refuses the others', () => {
    const found = find([
      [10, 20, 30], // A
      [20, 30, 40, 50], // B
      [30, 50], // C skips 40
      [60, 70], // D past the end
      [15, 25], // E first time not on it
      [40, 40], // F does not increase
    ]);
    expect([...found.micros]).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect([...found.first]).toEqual([0, 1, -1, 5, -1, -1]);
    expect(found.found).toBe(3);
    expect(found.chunks).toBe(9);
  });

  it('a record found has exactly the times of its stretch, and the timeline only times of records found (property)', () => {
    const recordArb = (tl: number[]) =>
      fc.oneof(
        // A stretch of the true timeline.
        fc.tuple(fc.nat({ max: tl.length - 2 }), fc.integer({ min: 2, max: tl.length })).map(([a, c]) => tl.slice(a, Math.min(tl.length, a + c))),
        // Its times with one skipped (a preempted sequence).
        fc.tuple(fc.nat({ max: tl.length - 3 }), fc.integer({ min: 3, max: tl.length })).map(([a, c]) => {
          const s = tl.slice(a, Math.min(tl.length, a + c));
          s.splice(1, 1);
          return s;
        }),
        // Its own times, sometimes repeating or going back.
        fc.array(fc.integer({ min: 0, max: 3_000_000 }), { minLength: 2, maxLength: 8 }).map((xs) => (xs.length % 3 === 0 ? xs : xs.sort((a, b) => a - b))),
      );
    fc.assert(
      fc.property(timelineArb.chain((tl) => fc.array(recordArb(tl), { minLength: 1, maxLength: 25 })), (lists) => {
        const found = find(lists);
        const tl = [...found.micros];
        for (let k = 1; k < tl.length; k++) expect(tl[k]!).toBeGreaterThan(tl[k - 1]!);
        const covered = new Set<number>();
        let count = 0;
        let chunks = 0;
        lists.forEach((l, c) => {
          const f = found.first[c]!;
          if (f < 0) return;
          expect(tl.slice(f, f + l.length)).toEqual(l);
          l.forEach((v) => covered.add(v));
          count++;
          chunks += l.length;
        });
        expect(new Set(tl)).toEqual(covered);
        expect(found.found).toBe(count);
        expect(found.chunks).toBe(chunks);
      }),
      { numRuns: 300 },
    );
  });

  it('finds every record when all are stretches of one timeline, in any order (property)', () => {
    fc.assert(
      fc.property(
        timelineArb.chain((tl) =>
          fc.tuple(fc.constant(tl), fc.array(fc.tuple(fc.nat({ max: tl.length - 2 }), fc.integer({ min: 2, max: tl.length })), { minLength: 1, maxLength: 25 })),
        ),
        ([tl, spans]) => {
          const lists = spans.map(([a, c]) => tl.slice(a, Math.min(tl.length, a + c)));
          const found = find(lists);
          expect(found.found).toBe(lists.length);
          expect([...found.micros]).toEqual(tl.filter((v) => lists.some((l) => l.includes(v))));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** A virtual-like run: records on one step timeline, with preempted, failed and own-time records among them. */
function sharedRun(): RequestRecord[] {
  const steps: number[] = [];
  for (let t = 0, k = 0; k < 400; k++) steps.push((t += 7.001 + (k % 5) * 3.117 + (k % 7 === 0 ? 40.25 : 0)));
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const out: RequestRecord[] = [];
  for (let id = 0; id < 120; id++) {
    const first = (id * 37) % 300;
    const count = 2 + ((id * 13) % 90);
    let chunks = steps.slice(first, first + count).map(round);
    if (id % 17 === 5) chunks.splice(3, 2); // preempted: two steps skipped
    if (id % 23 === 7) chunks = chunks.map((v) => v + 0.0005 * (1 + (id % 3))); // its own clock
    const sent = Math.max(0, round(chunks[0]! - 30));
    const failed = id % 19 === 11;
    out.push({
      ...emptyRecord(id % 29 === 3 ? id + 0.5 : id, sent),
      sent_ms: sent,
      first_token_ms: chunks[0]!,
      chunk_ms: Float64Array.from(chunks),
      end_ms: round(chunks.at(-1)! + 1),
      prompt_tokens: 100,
      output_tokens: failed ? 0 : chunks.length,
      status: failed ? 'error' : 'ok',
      error_class: failed ? 'http_5xx' : null,
      error_message: failed ? 'boom' : null,
      token_source: 'usage',
      finish_reason: failed ? null : 'length',
    });
  }
  return out;
}

function writeRun(records: RequestRecord[]): string {
  const dir = tempDir('shared-timeline');
  writeFileSync(join(dir, 'records.jsonl'), records.map((r) => recordToJsonLine(r) + '\n').join(''));
  writeFileSync(join(dir, 'result.json'), '{}\n');
  return join(dir, 'records.jsonl');
}

describe('records read back on their shared timeline', () => {
  it('keeps the records of the text, the stretches exact, and the figures but for the order of a sum', () => {
    const path = writeRun(sharedRun());
    const plain = readRecordsFile(path).records;
    const text = readRecordColumns(path).records;
    const loaded = loadColumnsFile(path)!.columns.records();
    for (const read of [text, loaded]) {
      expect(read.map(plainRecord)).toStrictEqual(plain);
      let stretches = 0;
      read.forEach((r) => {
        const s = stepStretchOf(r);
        if (s === null) return;
        stretches++;
        const times = Array.from({ length: s.count }, (_, k) => s.timeline.at(s.first + k));
        expect(times).toEqual([...r.chunk_ms]);
      });
      // All but the preempted, own-clock and whole (id + 0.5) ones.
      const own = plain.filter((r) => r.id % 17 === 5 || Math.floor(r.id) % 23 === 7 || !Number.isInteger(r.id)).length;
      expect(stretches).toBe(plain.length - own);
    }
    const want = computeMetrics(plain);
    for (const got of [computeMetrics(text), computeMetrics(loaded)]) {
      const { mean, std, ...exact } = got.latency.itl_ms;
      const { mean: wantMean, std: wantStd, ...wantExact } = want.latency.itl_ms;
      expect(exact).toStrictEqual(wantExact);
      expect(mean).toBeCloseTo(wantMean!, 10);
      expect(std).toBeCloseTo(wantStd!, 10);
      expect({ ...got, latency: { ...got.latency, itl_ms: null } }).toStrictEqual({ ...want, latency: { ...want.latency, itl_ms: null } });
    }
    expect(computeMetrics(loaded)).toStrictEqual(computeMetrics(text));
  });

  it('keeps records that share few times as they were', () => {
    const own = sharedRun().map((r, i) => ({ ...r, chunk_ms: r.chunk_ms.map((v) => Math.round((v + i * 0.013) * 1000) / 1000) }));
    const path = writeRun(own);
    expect(readRecordColumns(path).records.filter((r) => stepStretchOf(r) !== null)).toHaveLength(0);
  });

  it('finds most of a virtual run on one timeline', async () => {
    const results = tempDir('shared-timeline-sim');
    const out = await runCli(['sim', 'run', '--num-prompts', '300', '--request-rate', '20', '--seed', '3', '--result-dir', results, '--no-report', '--quiet']);
    expect(out.code).toBe(0);
    const dir = join(results, readdirSync(results).find((d) => !d.startsWith('.'))!);
    const path = join(dir, 'records.jsonl');
    const records = readRecordColumns(path).records;
    const ok = records.filter((r) => r.status === 'ok' && r.chunk_ms.length >= 2);
    const on = ok.filter((r) => stepStretchOf(r) !== null);
    expect(on.length).toBeGreaterThan(0.9 * ok.length);
    expect(records.map(plainRecord)).toStrictEqual(readRecordsFile(path).records);
  });
});
