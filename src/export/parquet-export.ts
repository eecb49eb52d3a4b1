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

export async function writeRecordsParquet(records: readonly RequestRecord[], path: string): Promise<void> {
  const columns = [...RECORD_COLUMNS, CHUNK_COLUMN];
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    // Lists are staged as text (see above) and cast on the way out.
    await conn.run(`CREATE TABLE records (${columns.map((c) => `"${c.name}" ${c.type === 'double_list' ? 'VARCHAR' : SQL_TYPE[c.type]}`).join(', ')})`);
    const appender = await conn.createAppender('records');
    for (const r of [...records].sort((a, b) => a.id - b.id)) {
      for (const c of columns) appendCell(appender, c, c.get(r));
      appender.endRow();
    }
    appender.closeSync();
    const select = columns.map((c) => (c.type === 'double_list' ? `"${c.name}"::${SQL_TYPE[c.type]} AS "${c.name}"` : `"${c.name}"`)).join(', ');
    await conn.run(`COPY (SELECT ${select} FROM records) TO ${literal(path)} (FORMAT parquet, COMPRESSION zstd)`);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}
