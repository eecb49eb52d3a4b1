/**
 * Parquet of the per-request table (record-columns.ts plus every chunk time as a list),
 * written by DuckDB (@duckdb/node-api, an in-memory database). Any Parquet reader (DuckDB,
 * pandas, Spark) reads it back; column types are fixed here, not inferred.
 *
 * The rows go through a staging file, not a table: each batch is written as lines of a CSV
 * dialect of our own (below) into a temporary file, then one `COPY (SELECT … FROM read_csv(…))
 * TO … (FORMAT parquet)` streams it into row groups. A staging *table* (an appender, then COPY)
 * held DuckDB's memory well past its memory_limit while rows went in (~140 MiB over its base at
 * 100k records, more at 1M: docs/performance.md §8, session 11); read_csv → COPY streams in
 * vectors, so the export's memory is one batch, one row group and DuckDB's limit at any length.
 *
 * The staging dialect is exact, so the Parquet holds the values the appender put in:
 *   - null is `\N` unquoted; every text is quoted ("…", quotes doubled), so an empty text is `""`
 *     and a text "\N" is `"\N"` (allow_quoted_nulls=false keeps quoted values as text);
 *   - an integer column is its decimal digits (BigInt), as appendBigInt took it;
 *   - a double is its shortest round-trip text (`String(v)`, `-0` kept), which DuckDB's parser
 *     reads back as the same double (correctly rounded);
 *   - a chunk-time list is its text "[t0,t1,…]" (each number's shortest round-trip form), quoted,
 *     cast to DOUBLE[] in the COPY as before: appending a list value creates one native value per
 *     element, which made Parquet export ~10× slower.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { RequestRecord } from '../record/record.js';
import { CHUNK_COLUMN, RECORD_COLUMNS, type Column, type ColumnType } from './record-columns.js';

const SQL_TYPE: Record<ColumnType, string> = { int: 'BIGINT', double: 'DOUBLE', text: 'VARCHAR', double_list: 'DOUBLE[]' };

const NULL_CELL = '\\N';

/** One cell of the staging file (see the top of this file). */
export function stagingCell(c: Column, v: ReturnType<Column['get']>): string {
  if (v === null) return NULL_CELL;
  switch (c.type) {
    case 'int':
      return BigInt(v as number).toString();
    case 'double':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'text':
      return `"${String(v).replace(/"/g, '""')}"`;
    case 'double_list':
      return `"[${(v as Float64Array).join(',')}]"`;
  }
}

/** SQL string literal (a file path), quotes doubled. */
const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export async function writeRecordsParquet(records: readonly RequestRecord[], path: string, opts: ParquetOptions = {}): Promise<void> {
  const sorted = [...records].sort((a, b) => a.id - b.id);
  function* batches(): Generator<readonly RequestRecord[]> {
    for (let i = 0; i < sorted.length; i += 1_000) yield sorted.slice(i, i + 1_000);
  }
  await writeParquetOfBatches(batches(), path, opts);
}

export interface ParquetOptions {
  /**
   * Where the staging file (and anything DuckDB spills) goes while it writes: a folder made inside
   * it and removed after; default the output file's folder.
   */
  workDir?: string;
}

/**
 * DuckDB's memory while it writes: one thread, so the COPY keeps the staging file's row order
 * (preserve_insertion_order), and its allocator hands freed memory back past 8 MB instead of
 * keeping up to 128 MB.
 */
const DUCKDB_CONFIG = { memory_limit: '64MB', threads: '1', preserve_insertion_order: 'true', allocator_flush_threshold: '8MB' } as const;
/** DuckDB's CSV read buffer, and so the longest staged line (a record of ~500k chunk times): its default (32 MB) does not fit the memory limit. */
const STAGING_LINE_BYTES = 8 * 2 ** 20;
/** Rows per Parquet row group: one row group is what the writer holds (~2.5 KB a row with its chunk times). */
const ROW_GROUP_ROWS = 4_096;

/**
 * The Parquet of records given in batches already in row order (store/records-by-id.ts reads
 * them a batch at a time): each batch is written to the staging file, then the file is copied out
 * in row groups. Memory is a batch, a row group and DuckDB's limit,
 * whatever the run's length; the types and values are those of writeRecordsParquet.
 */
export async function writeParquetOfBatches(batches: Iterable<readonly RequestRecord[]>, path: string, opts: ParquetOptions = {}): Promise<void> {
  const columns = [...RECORD_COLUMNS, CHUNK_COLUMN];
  const work = mkdtempSync(join(opts.workDir ?? dirname(path), '.records-parquet-'));
  try {
    const staging = join(work, 'rows.csv');
    const fd = openSync(staging, 'w');
    try {
      for (const batch of batches) {
        let text = '';
        for (const r of batch) {
          for (let k = 0; k < columns.length; k++) text += (k === 0 ? '' : ',') + stagingCell(columns[k]!, columns[k]!.get(r));
          text += '\n';
        }
        writeSync(fd, text);
      }
    } finally {
      closeSync(fd);
    }
    const db = await DuckDBInstance.create(':memory:', { ...DUCKDB_CONFIG, temp_directory: work });
    const conn = await db.connect();
    try {
      // Lists are staged as text (see above) and cast on the way out.
      const types = columns.map((c) => `${literal(c.name)}: ${literal(c.type === 'double_list' ? 'VARCHAR' : SQL_TYPE[c.type])}`).join(', ');
      const read = `read_csv(${literal(staging)}, columns = {${types}}, header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', nullstr = ${literal(NULL_CELL)}, allow_quoted_nulls = false, new_line = '\\n', strict_mode = true, max_line_size = ${STAGING_LINE_BYTES}, buffer_size = ${STAGING_LINE_BYTES})`;
      const select = columns.map((c) => (c.type === 'double_list' ? `"${c.name}"::${SQL_TYPE[c.type]} AS "${c.name}"` : `"${c.name}"`)).join(', ');
      await conn.run(`COPY (SELECT ${select} FROM ${read}) TO ${literal(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
