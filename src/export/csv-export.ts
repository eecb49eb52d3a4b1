/**
 * CSV exports: one row per request (record-columns.ts, without the chunk times), and the
 * run's summary as `figure,value` rows (result.json flattened to dotted names). RFC 4180
 * quoting by csv-stringify; empty cell = null.
 */
import { stringify } from 'csv-stringify/sync';
import type { RequestRecord } from '../record/record.js';
import type { RunResult } from '../report/result-json.js';
import { RECORD_COLUMNS } from './record-columns.js';

/**
 * Rows per piece of recordsCsvPieces. A piece's rows and csv-stringify's strings live until it is
 * written: at 10,000 rows they outlived the young generation and export of a 100k run peaked at
 * 360 MiB; at 1,000 at 230 MiB, the same CPU (docs/performance.md §8).
 */
export const CSV_BATCH = 1_000;

/**
 * The records' CSV in pieces of CSV_BATCH rows, header first, for a caller that writes each
 * piece as it comes: a long run's CSV is never one string (nor one array of every row).
 */
export function* recordsCsvPieces(records: readonly RequestRecord[]): Generator<string> {
  const sorted = [...records].sort((a, b) => a.id - b.id);
  function* batches(): Generator<readonly RequestRecord[]> {
    for (let i = 0; i < sorted.length; i += CSV_BATCH) yield sorted.slice(i, i + CSV_BATCH);
  }
  yield* csvPiecesOfBatches(batches());
}

/**
 * The records' CSV from batches already in row order (store/records-by-id.ts reads them a batch
 * at a time), one piece per batch, header first (alone when there is no batch). The same bytes as
 * recordsCsvPieces of the same records.
 */
export function* csvPiecesOfBatches(batches: Iterable<readonly RequestRecord[]>): Generator<string> {
  const columns = RECORD_COLUMNS.map((c) => c.name);
  let header = true;
  for (const batch of batches) {
    if (batch.length === 0) continue;
    const rows = batch.map((r) => RECORD_COLUMNS.map((c) => {
      const v = c.get(r);
      return v === null ? '' : typeof v === 'number' ? v : String(v);
    }));
    yield stringify(rows, { header, columns });
    header = false;
  }
  if (header) yield stringify([], { header: true, columns });
}

export function recordsCsv(records: readonly RequestRecord[]): string {
  return [...recordsCsvPieces(records)].join('');
}

/** Scalars of a nested value as [dotted.path, value]; arrays of scalars keep their index (goodput.slos.0.metric). */
export function flatten(value: unknown, prefix = '', out: Array<[string, string | number | boolean]> = []): Array<[string, string | number | boolean]> {
  if (value === null || value === undefined) return out;
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    out.push([prefix, value]);
  }
  return out;
}

export function summaryCsv(result: RunResult): string {
  const rows = flatten({
    run: result.run,
    target: { base_url: result.target.base_url, endpoint: result.target.endpoint, model: result.target.model, simulated: result.target.simulated },
    metrics: result.metrics,
    validity: result.validity ? { valid: result.validity.valid, reasons: result.validity.reasons } : null,
    by_task: result.by_task,
    by_turn: result.by_turn,
  });
  return stringify(rows, { header: true, columns: ['figure', 'value'], cast: { boolean: (b) => String(b) } });
}
