/**
 * Parquet of the per-request table (record-columns.ts plus every chunk time as a list),
 * written by DuckDB (@duckdb/node-api, an in-memory database): rows go in through an
 * appender and out with COPY … (FORMAT parquet). Any Parquet reader (DuckDB, pandas, Spark)
 * reads it back; column types are fixed here, not inferred.
 *
 * A chunk-time list goes in as its text ("[t0,t1,…]", each number's shortest round-trip form)
 * and DuckDB casts it to DOUBLE[] in the COPY: appending a list value creates one native value
 * per element, which made Parquet export ~10× slower and its memory ~8 KiB per record
 * (docs/performance.md §8). The cast reads back the same doubles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import type { RequestRecord } from '../record/record.js';
import { CHUNK_COLUMN, RECORD_COLUMNS, type Column, type ColumnType } from './record-columns.js';

const SQL_TYPE: Record<ColumnType, string> = { int: 'BIGINT', double: 'DOUBLE', text: 'VARCHAR', double_list: 'DOUBLE[]' };

function appendCell(a: DuckDBAppender, c: Column, v: ReturnType<Column['get']>): void {
  if (v === null) return a.appendNull();
  switch (c.type) {
    case 'int':
      return a.appendBigInt(BigInt(v as number));
    case 'double':
      return a.appendDouble(v as number);
    case 'text':
      return a.appendVarchar(String(v));
    case 'double_list':
      return a.appendVarchar(`[${(v as Float64Array).join(',')}]`);
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
   * Where DuckDB spills the staging table while it writes: a folder made inside it and removed
   * after; default the output file's folder.
   */
  workDir?: string;
}

/**
 * DuckDB's memory while it writes: the staging table goes to files in the work folder past this
 * (one thread, so the table and the COPY keep the rows' order), and its allocator hands freed
 * memory back past 8 MB instead of keeping up to 128 MB. At 100k records this held the export at
 * ~280 MiB; 32 MB made the COPY fail with Out of Memory (docs/performance.md §8, session 10).
 */
const DUCKDB_CONFIG = { memory_limit: '64MB', threads: '1', preserve_insertion_order: 'true', allocator_flush_threshold: '8MB' } as const;
/** Rows per Parquet row group: one row group is what the writer holds (~2.5 KB a row with its chunk times). */
const ROW_GROUP_ROWS = 4_096;

/**
 * The Parquet of records given in batches already in row order (store/records-by-id.ts reads
 * them a batch at a time): each batch is appended to a staging table that DuckDB spills to disk
 * past its memory limit, then the table is copied out in row groups. Memory is a batch and DuckDB's limit,
 * whatever the run's length; the types and values are those of writeRecordsParquet.
 */
export async function writeParquetOfBatches(batches: Iterable<readonly RequestRecord[]>, path: string, opts: ParquetOptions = {}): Promise<void> {
  const columns = [...RECORD_COLUMNS, CHUNK_COLUMN];
  const work = mkdtempSync(join(opts.workDir ?? dirname(path), '.records-parquet-'));
  try {
    const db = await DuckDBInstance.create(':memory:', { ...DUCKDB_CONFIG, temp_directory: work });
    const conn = await db.connect();
    try {
      // Lists are staged as text (see above) and cast on the way out.
      await conn.run(`CREATE TABLE records (${columns.map((c) => `"${c.name}" ${c.type === 'double_list' ? 'VARCHAR' : SQL_TYPE[c.type]}`).join(', ')})`);
      const appender = await conn.createAppender('records');
      for (const batch of batches) {
        for (const r of batch) {
          for (const c of columns) appendCell(appender, c, c.get(r));
          appender.endRow();
        }
        appender.flushSync();
      }
      appender.closeSync();
      const select = columns.map((c) => (c.type === 'double_list' ? `"${c.name}"::${SQL_TYPE[c.type]} AS "${c.name}"` : `"${c.name}"`)).join(', ');
      await conn.run(`COPY (SELECT ${select} FROM records) TO ${literal(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
