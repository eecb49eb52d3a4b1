import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordsFile } from '../../src/store/records-file.js';
import { CHUNK_COLUMN, RECORD_COLUMNS } from '../../src/export/record-columns.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';
import { INJECTED, makeReportFixture, type ReportFixture } from '../report/report-fixture.js';

let fx: ReportFixture;
let out: string;
let result: RunResult;
beforeAll(async () => {
  fx = await makeReportFixture();
  out = join(fx.root, 'exported');
  const r = await runCli(['export', fx.dir, '--format', 'csv,parquet,markdown', '--out-dir', out]);
  if (r.code !== 0) throw new Error(r.stderr);
  result = JSON.parse(readFileSync(join(fx.dir, 'result.json'), 'utf8')) as RunResult;
}, 60_000);
afterAll(() => fx?.cleanup());

describe('exports read back', () => {
  it('CSV: one row per request with its latencies; the summary holds the figures', () => {
    const { records } = readRecordsFile(join(fx.dir, 'records.jsonl'));
    const rows = parse(readFileSync(join(out, 'records.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(records.length);
    expect(rows.map((r) => Number(r.id))).toEqual(records.map((r) => r.id).sort((a, b) => a - b));
    const r0 = records.find((r) => r.id === 0)!;
    const row0 = rows[0]!;
    expect(Number(row0.ttft_ms)).toBe(r0.first_token_ms! - r0.sent_ms);
    expect(Number(row0.chunk_count)).toBe(r0.chunk_ms.length);
    expect(row0.output_text).toBe(INJECTED.output);
    // Quotes, commas and markup in a server message survive the CSV round trip; failed requests have no latency.
    const failed = rows.find((r) => r.status === 'error')!;
    expect(failed.error_message).toBe(INJECTED.error);
    expect(failed.ttft_ms).toBe('');

    const summary = parse(readFileSync(join(out, 'summary.csv'), 'utf8'), { columns: true }) as Array<{ figure: string; value: string }>;
    const get = (f: string) => summary.find((s) => s.figure === f)?.value;
    expect(Number(get('metrics.latency.ttft_ms.p99'))).toBe(result.metrics.latency.ttft_ms.p99);
    expect(Number(get('metrics.requests.total'))).toBe(result.metrics.requests.total);
    expect(get('target.model')).toBe(INJECTED.model);
  });

  it('Parquet: read by DuckDB, the same rows, chunk times and quantiles', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const path = join(out, 'records.parquet').replace(/'/g, "''");
      const reader = await conn.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, sum(len(chunk_ms))::INTEGER AS chunks, bool_and(len(chunk_ms) = chunk_count) AS lists_match,
                quantile_cont(ttft_ms, 0.5) FILTER (WHERE phase = 'measure') AS ttft_p50,
                quantile_cont(e2el_ms, 0.99) FILTER (WHERE phase = 'measure') AS e2el_p99,
                count(*) FILTER (WHERE status = 'error')::INTEGER AS errors
         FROM read_parquet('${path}')`,
      );
      const [row] = reader.getRowObjectsJS() as Array<{ n: number; chunks: number; lists_match: boolean; ttft_p50: number; e2el_p99: number; errors: number }>;
      const { records } = readRecordsFile(join(fx.dir, 'records.jsonl'));
      expect(row!.n).toBe(records.length);
      expect(row!.chunks).toBe(records.reduce((s, r) => s + r.chunk_ms.length, 0));
      expect(row!.lists_match).toBe(true);
      // every chunk time read back is the record's own double, exactly (rows in id order, as written)
      const lists = (await conn.runAndReadAll(`SELECT chunk_ms FROM read_parquet('${path}')`)).getRowObjectsJS() as Array<{ chunk_ms: number[] | null }>;
      const sorted = [...records].sort((a, b) => a.id - b.id);
      expect(lists.map((l) => l.chunk_ms ?? [])).toEqual(sorted.map((r) => Array.from(r.chunk_ms)));
      expect(row!.errors).toBe(result.metrics.requests.by_status.error);
      // DuckDB's quantile_cont interpolates as numpy's default does, which the metrics follow.
      expect(row!.ttft_p50).toBeCloseTo(result.metrics.latency.ttft_ms.p50!, 9);
      expect(row!.e2el_p99).toBeCloseTo(result.metrics.latency.e2el_ms.p99!, 9);
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });

  it('Parquet: every column of every row is the record column’s value, of its fixed type, rows in id order', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      const path = join(out, 'records.parquet').replace(/'/g, "''");
      const columns = [...RECORD_COLUMNS, CHUNK_COLUMN];
      const types = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).getRowObjectsJS() as Array<{ column_name: string; column_type: string }>;
      const SQL = { int: 'BIGINT', double: 'DOUBLE', text: 'VARCHAR', double_list: 'DOUBLE[]' } as const;
      expect(types.map((t) => [t.column_name, t.column_type])).toEqual(columns.map((c) => [c.name, SQL[c.type]]));
      const rows = (await conn.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJS() as Array<Record<string, unknown>>;
      const sorted = [...readRecordsFile(join(fx.dir, 'records.jsonl')).records].sort((a, b) => a.id - b.id);
      expect(rows).toHaveLength(sorted.length);
      const cell = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);
      for (let i = 0; i < rows.length; i++) {
        for (const c of columns) {
          const want = c.get(sorted[i]!);
          expect([i, c.name, cell(rows[i]![c.name])]).toEqual([i, c.name, want instanceof Float64Array ? Array.from(want) : want]);
        }
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  });

  it('Markdown: the key figures, escaped text, and SVG charts beside it', () => {
    const md = readFileSync(join(out, 'summary.md'), 'utf8');
    const m = result.metrics;
    expect(md).toContain(m.latency.ttft_ms.p99!.toFixed(2));
    expect(md).toContain(m.latency.tpot_ms.p50!.toFixed(2));
    expect(md).toContain(m.throughput.output_tokens_per_s!.toFixed(1));
    expect(md).toContain(`${m.goodput!.good} of ${m.requests.total} requests met every SLO`);
    expect(md).not.toContain('<script');
    const charts = readdirSync(join(out, 'summary-charts'));
    expect(charts).toEqual(expect.arrayContaining(['cdf-ttft.svg', 'cdf-itl.svg', 'ts-requests.svg', 'ts-ttft.svg', 'ts-slo.svg', 'ts-errors.svg']));
    for (const c of charts) {
      expect(md).toContain(`](summary-charts/${c})`);
      const svg = readFileSync(join(out, 'summary-charts', c), 'utf8');
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toMatch(/class="mark-(line|rect|symbol)[^"]*role-mark/);
    }
  });

  it('Markdown lists every gate, a failed --slo first', async () => {
    const dir = join(fx.root, 'with-slos');
    cpSync(fx.dir, dir, { recursive: true });
    const slo = (text: string, pass: boolean, value: number) => ({ slo: text, metric: 'ttft', unit: 'ms', statistic: 'p99', op: '<=', threshold: 500, window_ms: null, attainment_target: 1, value, windows: { total: 1, evaluated: 1, met: pass ? 1 : 0, whole_run: true }, attainment: pass ? 1 : 0, worst_window: null, pass, reason: pass ? 'met' : `p99(ttft) ${value} ms > 500 ms` });
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ ...result, slos: [slo('p50(ttft) <= 500ms', true, 12), slo('p99(ttft) <= 5ms', false, 612.5)] }));
    const r = await runCli(['export', dir, '--format', 'markdown', '--out-dir', join(fx.root, 'with-slos-out')]);
    expect(r.code, r.stderr).toBe(0);
    const md = readFileSync(join(fx.root, 'with-slos-out', 'summary.md'), 'utf8');
    expect(md).toContain('**Gates: 1 of 3 FAILED**');
    const rows = md.split('\n').filter((l) => /^\| (pass|\*\*FAIL\*\*) \|/.test(l));
    expect(rows.map((l) => l.split(' | ')[1])).toEqual(['p99(ttft) <= 5ms', 'validity', 'p50(ttft) <= 500ms']);
    expect(rows[0]).toContain('p99(ttft) 612.5 ms > 500 ms');
  });

  it('names a wrong format and a missing run', async () => {
    const bad = await runCli(['export', fx.dir, '--format', 'xlsx']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--format xlsx');
    const missing = await runCli(['export', join(fx.root, 'nope'), '--format', 'csv']);
    expect(missing.code).toBe(2);
    expect(existsSync(join(fx.root, 'nope'))).toBe(false);
  });
});
