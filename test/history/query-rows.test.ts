/** queryRows: rows as plain JSON values, BIGINT text turned into numbers in the integer columns only, each row in its column order. */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/history/history-query.js';

describe('queryRows', () => {
  it('integer columns as numbers (when exact), everything else as DuckDB gives it as JSON', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      const rows = await queryRows(
        c,
        `SELECT * FROM (VALUES
           ('123', 7::BIGINT, 8::BIGINT, 9::INTEGER, 10::BIGINT, 1.5::DOUBLE, 11::BIGINT),
           ('x', -3::BIGINT, 9007199254740993::BIGINT, NULL::INTEGER, NULL::BIGINT, NULL::DOUBLE, 12::BIGINT)
         ) t(run_id, count, n, num_prompts, requests, ttft_p99_ms, other)`,
      );
      expect(rows).toEqual([
        { run_id: '123', count: 7, n: 8, num_prompts: 9, requests: 10, ttft_p99_ms: 1.5, other: '11' },
        // Beyond 2^53 a number would not be exact: the text stays.
        { run_id: 'x', count: -3, n: '9007199254740993', num_prompts: null, requests: null, ttft_p99_ms: null, other: '12' },
      ]);
      expect(rows.map((r) => Object.keys(r).join())).toEqual(Array(2).fill('run_id,count,n,num_prompts,requests,ttft_p99_ms,other'));
      expect(await queryRows(c, `SELECT 1::BIGINT AS count WHERE false`)).toEqual([]);
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });
});
