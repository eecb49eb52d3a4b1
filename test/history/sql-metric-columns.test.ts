/**
 * The `sql` command's metric columns are generated from the registry (metrics/sql-columns.ts):
 * over the same records — retries, errors, timeouts, cancelled and stalled requests, warm-up
 * and cool-down — each column's count, extremes, mean and percentiles are the run's own figures.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSql } from '../../src/history/history-sql.js';
import { computeMetrics } from '../../src/metrics/index.js';
import { SQL_REQUEST_METRICS } from '../../src/metrics/sql-columns.js';
import { recordFromJsonLine, recordToJsonLine } from '../../src/record/jsonl.js';
import type { RequestRecord } from '../../src/record/record.js';
import { rec } from '../metrics/make-record.js';

const root = mkdtempSync(join(tmpdir(), 'infermeter-sql-metrics-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A run with one of everything the population rule must see, times with sub-ms fractions. */
function mixedRecords(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const s = i * 97.125;
    const chunks = Array.from({ length: 1 + (i % 7) }, (_, k) => s + 31.3 + i * 1.7 + k * (4.9 + (i % 3)));
    const r = rec({ id: i, scheduled_ms: s, sent_ms: s + (i % 5) * 0.75, chunks });
    if (i < 3) r.phase = 'warmup';
    else if (i >= 37) r.phase = 'cooldown';
    else if (i % 9 === 4) Object.assign(r, { status: 'error', error_class: 'http_5xx', http_status: 500 });
    else if (i % 11 === 5) Object.assign(r, { status: 'timeout', error_class: 'timeout' });
    else if (i % 13 === 6) Object.assign(r, { status: 'cancelled', error_class: 'cancelled' });
    else if (i % 8 === 7) Object.assign(r, { status: 'error', error_class: 'stalled' });
    out.push(r);
    // Every fifth request was retried: a superseded first attempt (an ok-looking one included) before it.
    if (i % 5 === 0 && i >= 3 && i < 37) {
      const first = rec({ id: i, scheduled_ms: s, sent_ms: s - 50, chunks: [s - 10, s - 2], status: i % 10 === 0 ? 'ok' : 'error', attempt: 0, retried: true });
      out.push(first);
      r.attempt = 1;
    }
  }
  return out;
}

describe('sql: the metric columns are the registry figures', () => {
  it('gives each request metric the run\'s count, min, max, mean and percentiles over the same records', async () => {
    const lines = mixedRecords().map((r) => recordToJsonLine(r));
    const dir = join(root, 'results', 'run-mixed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'records.jsonl'), lines.map((l) => l + '\n').join(''));
    // The figures from the records as saved (times rounded as records.jsonl keeps them), as `analyze` reads them.
    const metrics = computeMetrics(lines.map(recordFromJsonLine));
    expect(SQL_REQUEST_METRICS.map((d) => d.id)).toEqual(['ttft_ms', 'ttft_from_schedule_ms', 'tpot_ms', 'e2el_ms', 'e2el_from_schedule_ms', 'schedule_lag_ms']);
    for (const def of SQL_REQUEST_METRICS) {
      const c = def.id;
      const { rows } = await runSql(join(root, 'results'),
        `SELECT count(${c})::INTEGER AS n, min(${c}) AS min, max(${c}) AS max, avg(${c}) AS mean,
                quantile_cont(${c}, 0.5) AS p50, quantile_cont(${c}, 0.9) AS p90, quantile_cont(${c}, 0.95) AS p95,
                quantile_cont(${c}, 0.99) AS p99, quantile_cont(${c}, 0.999) AS p99_9 FROM records`);
      const got = rows[0] as Record<string, number>;
      const want = metrics.latency[def.id as keyof typeof metrics.latency];
      expect(got.n, c).toBe(want.count);
      expect(want.count, c).toBeGreaterThan(5);
      expect(got.min, c).toBe(want.min);
      expect(got.max, c).toBe(want.max);
      // Percentiles and the mean: the same interpolation (numpy's, DuckDB's quantile_cont), summed in another order.
      for (const k of ['mean', 'p50', 'p90', 'p95', 'p99', 'p99_9'] as const) expect(Math.abs(got[k]! - want[k]!), `${c} ${k}`).toBeLessThan(1e-9);
    }
  }, 60_000);
});
