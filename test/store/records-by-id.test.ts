/**
 * records.jsonl read back in id order a batch at a time (store/records-by-id.ts, what the CSV and
 * Parquet exports stream): the same records readRecordsFile gives, checked the same way, sorted
 * by id (equal ids in file order), whatever the batch size.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { indexRecordsById, recordBatchesById } from '../../src/store/records-by-id.js';
import { readRecordsFile } from '../../src/store/records-reader.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A streamed record with its chunk times, a text with non-ASCII characters, in completion order (not id order). */
function record(id: number, stage = 0): RequestRecord {
  const t = 10 + id * 3.25;
  return {
    ...emptyRecord(id, t),
    stage,
    status: 'ok',
    first_token_ms: t + 1.5,
    chunk_ms: Float64Array.from({ length: 1 + (id % 5) }, (_, k) => t + 1.5 + k * 0.125),
    end_ms: t + 9,
    output_tokens: 1 + (id % 5),
    output_text: id % 4 === 0 ? `réponse ${id} 😀, "quoted"` : null,
  };
}

function readAll(path: string, batch: number, warn?: (l: string) => void): { batches: RequestRecord[][]; flat: RequestRecord[] } {
  const batches = [...recordBatchesById(indexRecordsById(path, warn ? { warn, chunkBytes: 97 } : { chunkBytes: 97 }), batch)];
  return { batches, flat: batches.flat() };
}

describe('recordBatchesById', () => {
  it('every record once, in id order (equal ids of two stages in file order), in batches; repeats dropped with the reader’s warning; a truncated tail skipped', () => {
    const dir = tempDir('by-id');
    const path = join(dir, 'records.jsonl');
    const n = 53;
    // Completion order: a permutation of the ids; stage 1 repeats ids 0…9 after them.
    const recs = Array.from({ length: n }, (_, i) => record((i * 17) % n));
    const lines = recs.map(recordToJsonLine);
    lines.splice(20, 0, lines[3]!); // the same record written twice
    lines.splice(30, 0, ''); // a blank line
    for (let id = 9; id >= 0; id--) lines.push(recordToJsonLine(record(id, 1)));
    writeFileSync(path, `${lines.join('\n')}\n`);
    appendFileSync(path, recordToJsonLine(record(99)).slice(0, 40)); // a killed run's cut last line

    const warnings: string[] = [];
    const expected = [...readRecordsFile(path).records].sort((a, b) => a.id - b.id);
    expect(expected).toHaveLength(n + 10);
    for (const batch of [1, 7, 250]) {
      const { batches, flat } = readAll(path, batch, (l) => warnings.push(l));
      expect(batches.map((b) => b.length)).toEqual(Array.from({ length: Math.ceil((n + 10) / batch) }, (_, k) => Math.min(batch, n + 10 - k * batch)));
      expect(flat).toEqual(expected);
      // ids 0…9: stage 0 (written first) before stage 1
      expect(flat.slice(0, 4).map((r) => [r.id, r.stage])).toEqual([[0, 0], [0, 1], [1, 0], [1, 1]]);
    }
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/1 record written twice .*line 21/);
  });

  it('an empty file gives no batch; checks refuse what the other readers refuse, naming the line', () => {
    const dir = tempDir('by-id-bad');
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect([...recordBatchesById(indexRecordsById(empty))]).toEqual([]);

    const mixed = join(dir, 'mixed.jsonl');
    writeFileSync(mixed, `${[record(1), record(2), { ...record(1), output_text: 'another run' }].map(recordToJsonLine).join('\n')}\n`);
    expect(() => indexRecordsById(mixed)).toThrow(/mixed\.jsonl:3: a second, different record for stage 0, id 1 \(first at line 1\)/);

    const inverted = join(dir, 'inverted.jsonl');
    writeFileSync(inverted, `${[record(1), { ...record(2), end_ms: 1 }].map(recordToJsonLine).join('\n')}\n`);
    expect(() => indexRecordsById(inverted)).toThrow(/inverted\.jsonl:2: end_ms \(1\) is before sent_ms/);

    const garbage = join(dir, 'garbage.jsonl');
    writeFileSync(garbage, `${recordToJsonLine(record(1))}\n{"id": oops}\n`);
    expect(() => indexRecordsById(garbage)).toThrow(/garbage\.jsonl:2: not valid JSON/);
  });
});
