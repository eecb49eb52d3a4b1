/** The records' CSV written in pieces is the CSV made in one piece: one header, every row once, in id order. */
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CSV_BATCH, csvPiecesOfBatches, recordsCsv, recordsCsvPieces } from '../../src/export/csv-export.js';
import { RECORD_COLUMNS } from '../../src/export/record-columns.js';
import { emptyRecord } from '../../src/record/record.js';

describe('recordsCsvPieces', () => {
  it('2 × CSV_BATCH + 1 records (three pieces, the last of one row): equal to one stringify of every row, in id order', () => {
    const n = 2 * CSV_BATCH + 1;
    // completion order is not id order
    const records = Array.from({ length: n }, (_, i) => ({ ...emptyRecord((i * 7919) % n, i), error_message: i % 100 === 0 ? 'a, "quoted"\nline' : null }));
    const pieces = [...recordsCsvPieces(records)];
    expect(pieces).toHaveLength(3);
    const sorted = [...records].sort((a, b) => a.id - b.id);
    const oneShot = stringify(
      sorted.map((r) => RECORD_COLUMNS.map((c) => {
        const v = c.get(r);
        return v === null ? '' : typeof v === 'number' ? v : String(v);
      })),
      { header: true, columns: RECORD_COLUMNS.map((c) => c.name) },
    );
    expect(pieces.join('')).toBe(oneShot);
    expect(recordsCsv(records)).toBe(oneShot);
  });

  it('from batches in row order (what export streams): the same bytes whatever the batch size, one header; no batch or empty ones: the header alone', () => {
    const records = Array.from({ length: 23 }, (_, i) => ({ ...emptyRecord(i, i), error_message: i % 5 === 0 ? 'a, "quoted"\nline' : null }));
    for (const size of [1, 4, 23]) {
      const batches = Array.from({ length: Math.ceil(records.length / size) }, (_, k) => records.slice(k * size, (k + 1) * size));
      expect([...csvPiecesOfBatches([[], ...batches, []])].join('')).toBe(recordsCsv(records));
    }
    expect([...csvPiecesOfBatches([])].join('')).toBe(recordsCsv([]));
    expect([...csvPiecesOfBatches([[], []])].join('')).toBe(recordsCsv([]));
  });

  it('no records: the header alone', () => {
    expect(recordsCsv([])).toBe(stringify([], { header: true, columns: RECORD_COLUMNS.map((c) => c.name) }));
    expect(recordsCsv([]).length).toBeGreaterThan(0);
  });
});
