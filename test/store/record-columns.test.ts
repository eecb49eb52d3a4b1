/**
 * Records read into typed columns (record/record-columns.ts, readRecordColumns) against the object
 * path (forEachRecord: JSON.parse of every line): over random runs — ok answers, errors, stalls,
 * timeouts, cancellations, retried attempts, reasoning, answer checks, trace ids, tasks and turns,
 * chunk times in whole µs (what records.jsonl writes) and not — every record reads back the same
 * and every metric is the same, bit for bit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGoodputSlo, parseObjective } from '../../src/config/slo.js';
import { computeMetrics, computeMetricsByTask, evaluateObjectives, OBJECTIVE_METRICS } from '../../src/metrics/index.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { chunkCount, chunksAtMost, ChunkTimes, plainRecord, RecordColumns, sortedChunksStart } from '../../src/record/record-columns.js';
import { offeredWindow } from '../../src/metrics/offered-window.js';
import { timesProblem } from '../../src/store/records-check.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { forEachRecord, readRecordColumns, readRecordsFile } from '../../src/store/records-reader.js';
import { tempDir } from '../helpers/temp-dir.js';
import { lineOf, recordArb } from '../helpers/random-records.js';

function writeRun(items: Array<{ r: RequestRecord; exact: boolean }>): string {
  const path = join(tempDir('columns'), 'records.jsonl');
  writeFileSync(path, items.map(({ r, exact }, id) => `${lineOf({ ...r, id }, exact)}\n`).join(''));
  return path;
}

function objectPath(path: string): RequestRecord[] {
  const out: RequestRecord[] = [];
  forEachRecord(path, (r) => out.push(r));
  return out;
}

const slos = [parseGoodputSlo('ttft:300'), parseGoodputSlo('itl:50')];
const objectives = ['p90(ttft) <= 400ms', 'p99(itl) < 60ms', 'error_rate <= 5%'].map((t) => parseObjective(t, OBJECTIVE_METRICS));

describe('records in typed columns', () => {
  it('read back as the object path reads them, and give the same metrics bit for bit (property)', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 40 }), (items) => {
        const path = writeRun(items);
        const objects = objectPath(path);
        const { records: views, columns } = readRecordColumns(path);
        expect(columns.length).toBe(objects.length);
        expect(views.map(plainRecord)).toEqual(objects);
        expect(readRecordsFile(path).records).toEqual(objects);
        const times = new ChunkTimes();
        for (let i = 0; i < views.length; i++) {
          expect(chunkCount(views[i]!)).toBe(objects[i]!.chunk_ms.length);
          expect(times.of(views[i]!)).toEqual(objects[i]!.chunk_ms);
        }
        expect(computeMetrics(views, { slos })).toEqual(computeMetrics(objects, { slos }));
        expect(computeMetricsByTask(views, { slos })).toEqual(computeMetricsByTask(objects, { slos }));
        expect(evaluateObjectives(views, objectives, { goodput: slos })).toEqual(evaluateObjectives(objects, objectives, { goodput: slos }));
        // A view spread through recordToJsonLine writes the line the object writes.
        expect(views.map((v) => recordToJsonLine(v))).toEqual(objects.map((o) => recordToJsonLine(o)));
      }),
      { numRuns: 60 },
    );
  });

  it('counts chunk times up to a time and checks them on read as the loop over every chunk does, in order or not (property)', () => {
    const time = fc.oneof(fc.integer({ min: 0, max: 5_000_000 }).map((k) => k / 1000), fc.double({ min: 0, max: 5000, noNaN: true }));
    fc.assert(
      fc.property(fc.array(time, { maxLength: 20 }), fc.boolean(), fc.double({ min: -1, max: 5001, noNaN: true }), fc.option(fc.nat()), fc.double({ min: 0, max: 5000, noNaN: true }), (ts, sort, any, pick, sent) => {
        const c = Float64Array.from(ts);
        if (sort) c.sort();
        // Often exactly one of the chunk times (ties are where a bisection can be off by one).
        const t = pick !== null && c.length > 0 ? c[pick % c.length]! : any;
        const r: RequestRecord = { ...emptyRecord(0, sent), first_token_ms: null, chunk_ms: c, end_ms: 6000 };
        const cols = new RecordColumns();
        cols.add(r);
        const v = cols.view(0);
        let inside = 0;
        for (const x of c) if (x <= t) inside++;
        expect(chunksAtMost(v, t, new ChunkTimes())).toBe(inside);
        expect(chunksAtMost(r, t, new ChunkTimes())).toBe(inside);
        expect(timesProblem(v)).toBe(timesProblem(r));
        const inOrder = c.every((x, i) => i === 0 || x >= c[i - 1]!);
        expect(sortedChunksStart(v)).toBe(inOrder ? (c.length > 0 ? c[0]! : null) : undefined);
        const w = { start_ms: 0, end_ms: 7000 };
        expect(offeredWindow([{ ...r, sent_ms: t + 1000 }, v], w)).toEqual(offeredWindow([{ ...r, sent_ms: t + 1000 }, r], w));
      }),
      { numRuns: 100 },
    );
    // A record whose chunks go back is still refused on read with the index and the times.
    const back = new RecordColumns();
    back.add({ ...emptyRecord(0, 0), chunk_ms: Float64Array.of(1, 3, 2), first_token_ms: 1, end_ms: 5 });
    expect(timesProblem(back.view(0))).toBe('chunk_ms goes back in time at index 2 (3 then 2)');
    back.add({ ...emptyRecord(1, 2), chunk_ms: Float64Array.of(1, 3), first_token_ms: 2, end_ms: 5 });
    expect(timesProblem(back.view(1))).toBe('chunk_ms[0] (1) is before sent_ms (2)');
  });

  it('keeps whole µs chunk times in 4 bytes each and gives back the doubles JSON.parse gives', () => {
    const cols = new RecordColumns();
    // 0.938 is 0.001 + 0.937 µs apart: (1 + 937) / 1000 is its double, 1/1000 + 937/1000 is not.
    const text = '[0.001,0.938,50.291,123456.789,123457.5,4000000.001]';
    const c = Float64Array.from(JSON.parse(text) as number[]);
    cols.add({ ...emptyRecord(0, 0), chunk_ms: c });
    expect(new ChunkTimes().of(cols.view(0))).toEqual(c);
  });

  it('gives back ids the Int32 id column cannot hold (fractional, negative, −0, 2^31 and over) exactly', () => {
    const cols = new RecordColumns();
    const ids = [0, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 1, 1.5, -3, -0, Number.MAX_SAFE_INTEGER];
    for (const id of ids) cols.add({ ...emptyRecord(id, 0), chunk_ms: Float64Array.of(1, 2) });
    ids.forEach((id, i) => {
      expect(Object.is(cols.view(i).id, id)).toBe(true);
      expect(plainRecord(cols.view(i))).toEqual({ ...emptyRecord(id, 0), chunk_ms: Float64Array.of(1, 2) });
    });
  });

  it('reads lines whose chunk_ms the byte scan leaves to JSON.parse (exponent, spaces, a fourth decimal) the same', () => {
    const base = recordToJsonLine({ ...emptyRecord(1, 0), first_token_ms: 1, end_ms: 2000, status: 'ok' });
    const lines = ['[1e0,2.5]', '[ 1, 2 ]', '[1.0001,2]', '[1000,2000.000]'].map((arr, i) => base.replace('"id":1', `"id":${i}`).replace('"chunk_ms":[]', `"chunk_ms":${arr}`));
    const path = join(tempDir('columns-odd'), 'records.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(readRecordColumns(path).records.map(plainRecord)).toEqual(objectPath(path));
    expect(readRecordColumns(path).records.map((r) => Array.from(r.chunk_ms))).toEqual([[1, 2.5], [1, 2], [1.0001, 2], [1000, 2000]]);
  });

  it('names the file and line of a bad line as the object path does', () => {
    const good = recordToJsonLine({ ...emptyRecord(0, 0), chunk_ms: Float64Array.of(1, 2), first_token_ms: 1, end_ms: 2 });
    const path = join(tempDir('columns-bad'), 'records.jsonl');
    writeFileSync(path, `${good}\n${good.replace('"id":0', '"id":1').replace('"status":"ok"', '"status":"weird"')}\n`);
    expect(() => readRecordColumns(path)).toThrow(`${path}:2: unknown status "weird"`);
  });
});
