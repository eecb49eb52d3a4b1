/**
 * The history end to end: runs made quickly in virtual time (`sim run`) index themselves;
 * `history`, `trend` and `sql` read them back; a busy or broken history never fails a run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexRun } from '../../src/history/history-index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { runCli } from '../helpers/cli.js';

let root: string;
const results = () => join(root, 'results');
const SIM = ['--random-input-len', '256', '--random-output-len', '32', '--num-prompts', '60', '--seed', '7'];

async function simRun(args: string[]): Promise<string> {
  const out = await runCli(['sim', 'run', '--result-dir', results(), ...SIM, ...args]);
  expect(out.code, out.stderr).toBe(0);
  expect(out.stderr).not.toMatch(/warning: history/);
  return /Run directory: (.+)/.exec(out.stdout)![1]!.trim();
}

async function json<T>(argv: string[]): Promise<T> {
  const out = await runCli([...argv, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as T;
}

type Row = Record<string, unknown>;
let dirs: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'infermeter-history-'));
  // Two runs of one spec and one of another; distinct names keep their directories apart within a second.
  dirs = [await simRun(['--request-rate', '4', '--name', 'a']), await simRun(['--request-rate', '4', '--name', 'b']), await simRun(['--request-rate', '8', '--name', 'c'])];
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('history', () => {
  it('every saved run is indexed when it finishes, with its figures and spec hash', async () => {
    const rows = await json<Row[]>(['history', '--results-dir', results()]);
    expect(rows.map((r) => r.name).sort()).toEqual(['a', 'b', 'c']);
    const byName = Object.fromEntries(rows.map((r) => [r.name as string, r]));
    const result = JSON.parse(readFileSync(join(dirs[0]!, 'result.json'), 'utf8')) as RunResult;
    const a = byName.a!;
    expect(a.dir).toBe(dirs[0]!.split('/').pop());
    expect(a.requests).toBe(60);
    expect(a.ok).toBe(result.metrics.requests.ok);
    expect(a.ttft_p99_ms).toBe(result.metrics.latency.ttft_ms.p99);
    expect(a.output_throughput).toBe(result.metrics.throughput.output_tokens_per_s);
    expect(a.model).toBe('llama-3.1-8b');
    expect(a.target).toBe('simulator (h100)');
    expect(a.load_shape).toBe('open poisson 4 req/s');
    expect(a.driver).toBe('virtual');
    // Same load and workload → same spec hash; another rate → another.
    expect(byName.b!.spec_hash).toBe(a.spec_hash);
    expect(byName.c!.spec_hash).not.toBe(a.spec_hash);
  });

  it('filters: --model, --since, --spec, --limit; the table names the runs', async () => {
    expect(await json<Row[]>(['history', '--results-dir', results(), '--model', 'LLAMA-3.1'])).toHaveLength(3);
    expect(await json<Row[]>(['history', '--results-dir', results(), '--model', 'qwen'])).toHaveLength(0);
    expect(await json<Row[]>(['history', '--results-dir', results(), '--since', '2999-01-01'])).toHaveLength(0);
    expect(await json<Row[]>(['history', '--results-dir', results(), '--since', '1h'])).toHaveLength(3);
    expect(await json<Row[]>(['history', '--results-dir', results(), '--limit', '2'])).toHaveLength(2);
    const rows = await json<Row[]>(['history', '--results-dir', results()]);
    const a = rows.find((r) => r.name === 'a')!;
    expect((await json<Row[]>(['history', '--results-dir', results(), '--spec', String(a.spec_hash).slice(0, 6)])).map((r) => r.name).sort()).toEqual(['a', 'b']);
    const table = await runCli(['history', '--results-dir', results()]);
    for (const d of dirs) expect(table.stdout).toContain(d.split('/').pop()!);
    const bad = await runCli(['history', '--results-dir', results(), '--limit', '0']);
    expect(bad.code).toBe(2);
  });

  it('sql: views over the history and every records.jsonl; exact quantiles agree with result.json', async () => {
    const rows = await json<Row[]>([
      'sql',
      '--results-dir',
      results(),
      `SELECT r.run_id, count(*) AS n, quantile_cont(r.ttft_ms, 0.99) AS p99, max(h.ttft_p99_ms) AS hist_p99
         FROM records r JOIN runs h USING (run_id) WHERE r.status = 'ok' AND r.phase = 'measure' GROUP BY r.run_id ORDER BY r.run_id`,
    ]);
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(Number(r.n)).toBe(60);
      // records keep µs (3 decimals): the SQL quantile over them matches the run's own p99 to that precision
      expect(Math.abs((r.p99 as number) - (r.hist_p99 as number))).toBeLessThan(0.002);
    }
    const bad = await runCli(['sql', '--results-dir', results(), 'SELECT nope FROM runs']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: sql: .*nope/m);
    // The query cannot change the history: the views are read-only.
    const write = await runCli(['sql', '--results-dir', results(), 'DELETE FROM runs']);
    expect(write.code).toBe(2);
    expect(await json<Row[]>(['history', '--results-dir', results()])).toHaveLength(3);
  });

  it('trend: a hand-made slower run of the same spec is flagged as a regression (exit 4 with --fail-on-regression)', async () => {
    // A copy of run b, one hour later, with TTFT p99 50 % higher: what a slower server would give.
    const slow = join(results(), 'slow-copy');
    cpSync(dirs[1]!, slow, { recursive: true });
    const res = JSON.parse(readFileSync(join(slow, 'result.json'), 'utf8')) as RunResult;
    const base = res.metrics.latency.ttft_ms.p99!;
    res.run.id = 'slow-copy';
    res.run.started_at = new Date(Date.parse(res.run.started_at) + 3600e3).toISOString();
    res.metrics.latency.ttft_ms.p99 = base * 1.5;
    writeFileSync(join(slow, 'result.json'), JSON.stringify(res));
    const re = await runCli(['history', '--results-dir', results(), '--reindex']);
    expect(re.stderr).toMatch(/4 rows \(runs and sweep stages\) indexed/);

    const t = await json<{ spec_hash: string; points: Row[]; regression: Row | null }>(['trend', 'ttft_p99', '--results-dir', results()]);
    expect(t.points.map((p) => p.run_id)).toEqual([dirs[0]!.split('/').pop(), dirs[1]!.split('/').pop(), 'slow-copy']);
    expect(t.regression).toMatchObject({ run_id: 'slow-copy', previous_run_id: dirs[1]!.split('/').pop(), value: base * 1.5, previous: base });
    expect(t.regression!.change as number).toBeCloseTo(0.5, 9);
    const gate = await runCli(['trend', 'ttft_p99_ms', '--results-dir', results(), '--fail-on-regression']);
    expect(gate.code).toBe(4);
    expect(gate.stdout).toMatch(/REGRESSION: ttft_p99_ms .*\+50\.0%/);
    // Throughput did not move (same records): no regression there, exit 0.
    const thr = await runCli(['trend', 'output_throughput', '--results-dir', results(), '--fail-on-regression', '--threshold', '5%']);
    expect(thr.code).toBe(0);
    expect(thr.stdout).toMatch(/No regression/);
    // The other spec has one run: nothing to compare.
    const other = await json<{ points: Row[]; regression: Row | null }>(['trend', 'ttft_p99', '--results-dir', results(), '--run', dirs[2]!.split('/').pop()!]);
    expect(other.points).toHaveLength(1);
    expect(other.regression).toBeNull();
    rmSync(slow, { recursive: true });
  });
});

/** A child process that opens the history for writing and holds its lock until killed. */
function holdLock(file: string): Promise<ChildProcess> {
  const code = `import { DuckDBInstance } from '@duckdb/node-api';
    const db = await DuckDBInstance.create(${JSON.stringify(file)});
    const conn = await db.connect();
    await conn.run('SELECT 1');
    console.log('locked');
    // Referenced until killed: a collected instance would close the file and drop the lock.
    setInterval(() => void [db, conn], 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => (d.toString().includes('locked') ? resolve(child) : undefined));
    child.on('exit', (c) => reject(new Error(`lock holder exited ${c}`)));
  });
}

describe('the journal: runs write rows, every reader folds them in first', () => {
  it('sql, trend and the rows of a run made after a read all see every finished run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-journal-'));
    try {
      const res = join(dir, 'results');
      const run = async (name: string) => expect((await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', name])).code).toBe(0);
      await run('j1');
      await run('j2');
      // The runs did not create the database: their rows wait in the journal.
      expect(existsSync(join(res, 'history.duckdb'))).toBe(false);
      expect(readdirSync(join(res, '.history-pending')).sort()).toEqual(readdirSync(res).filter((d) => /-j[12]$/.test(d)).map((d) => `${d}.json`).sort());
      // sql is the first reader here: it folds the journal, then queries.
      const sql = await json<Row[]>(['sql', 'SELECT count(*)::INTEGER AS n FROM runs', '--results-dir', res]);
      expect(sql).toEqual([{ n: 2 }]);
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
      await run('j3');
      const t = await json<{ points: Row[] }>(['trend', 'ttft_p99', '--results-dir', res]);
      expect(t.points.map((p) => String(p.run_id).replace(/^.*-/, ''))).toEqual(['j1', 'j2', 'j3']);
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a history failure never fails or loses a run', () => {
  it('a journal row the table refuses moves aside with one warning; the other rows go in and later reads are quiet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-rejected-'));
    try {
      const res = join(dir, 'results');
      for (const name of ['ok1', 'ok2']) expect((await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', name])).code).toBe(0);
      // A row without the NOT NULL columns (hand-edited, or from another tool).
      writeFileSync(join(res, '.history-pending', 'bogus.json'), JSON.stringify({ run_id: 'bogus' }));
      const out = await runCli(['history', '--results-dir', res, '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as Row[]).map((r) => r.name).sort()).toEqual(['ok1', 'ok2']);
      expect(out.stderr).toMatch(/^warning: history: row \.history-pending\/bogus\.json could not be indexed \(.+\): moved to \.history-rejected\/ /m);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
      expect(JSON.parse(readFileSync(join(res, '.history-rejected', 'bogus.json'), 'utf8'))).toEqual({ run_id: 'bogus' });
      const again = await runCli(['history', '--results-dir', res, '--json']);
      expect(again.stderr).toBe('');
      expect(JSON.parse(again.stdout) as Row[]).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a reader that cannot fold the journal warns and reads what the history file holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-nofold-'));
    try {
      const res = join(dir, 'results');
      expect((await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', 'in'])).code).toBe(0);
      expect(await json<Row[]>(['history', '--results-dir', res])).toHaveLength(1);
      // The journal cannot be read: here a file where its folder belongs (a read-only results
      // folder fails the same way, but root — as tests often run — may write anywhere).
      writeFileSync(join(res, '.history-pending'), 'not a folder');
      const out = await runCli(['history', '--results-dir', res, '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as Row[]).map((r) => r.name)).toEqual(['in']);
      expect(out.stderr).toMatch(/^warning: history: the journal \(\.history-pending\/\) could not be folded in, so runs waiting there are not shown: .*ENOTDIR/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a history locked by another process: the run does not wait for it; its row waits in the journal and the next reader folds it in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-lock-'));
    try {
      const res = join(dir, 'results');
      const first = await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', 'first']);
      expect(first.code).toBe(0);
      const runDir = join(res, readdirSync(res).find((d) => d.endsWith('-first'))!);
      // Fold the first run's row, so the file exists for another process to lock.
      expect((await json<Row[]>(['history', '--results-dir', res])).map((x) => x.run_id)).toEqual([runDir.split('/').pop()]);
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
      const second = join(res, 'second');
      cpSync(runDir, second, { recursive: true });
      const r = JSON.parse(readFileSync(join(second, 'result.json'), 'utf8')) as RunResult;
      r.run.id = 'second';
      writeFileSync(join(second, 'result.json'), JSON.stringify(r));

      const holder = await holdLock(join(res, 'history.duckdb'));
      let warning: string | null;
      try {
        warning = await indexRun(res, second);
      } finally {
        holder.kill();
        await new Promise((r) => holder.once('exit', r));
      }
      expect(warning).toBeNull();
      const journaled = JSON.parse(readFileSync(join(res, '.history-pending', 'second.json'), 'utf8')) as Row;
      expect(journaled).toMatchObject({ run_id: 'second', dir: 'second' });

      const rows = await json<Row[]>(['history', '--results-dir', res]);
      expect(rows.map((x) => x.run_id).sort()).toEqual([runDir.split('/').pop(), 'second'].sort());
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('a cut JSON row in the journal moves aside with one warning instead of waiting there forever', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-cut-'));
    try {
      const res = join(dir, 'results');
      expect((await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', 'ok'])).code).toBe(0);
      writeFileSync(join(res, '.history-pending', 'cut.json'), '{"run_id":"cut","kind":"ru');
      const out = await runCli(['history', '--results-dir', res, '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect((JSON.parse(out.stdout) as Row[]).map((r) => r.name)).toEqual(['ok']);
      const lines = out.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^warning: history: row \.history-pending\/cut\.json is not a JSON row \(.+\): moved to \.history-rejected\/ \(`infermeter history --reindex` indexes its run again\)$/);
      expect(readFileSync(join(res, '.history-rejected', 'cut.json'), 'utf8')).toBe('{"run_id":"cut","kind":"ru');
      expect(existsSync(join(res, '.history-pending'))).toBe(false);
      expect((await runCli(['history', '--results-dir', res, '--json'])).stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a history locked past the wait: exit 2, one notice while waiting and one line naming the holder\'s pid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-held-'));
    try {
      const res = join(dir, 'results');
      expect((await runCli(['sim', 'run', '--result-dir', res, ...SIM])).code).toBe(0);
      expect((await runCli(['history', '--results-dir', res])).code).toBe(0);
      const holder = await holdLock(join(res, 'history.duckdb'));
      const { withHistory, setHistoryWarningSink } = await import('../../src/history/history-db.js');
      const { UserError } = await import('../../src/errors/user-error.js');
      const notices: string[] = [];
      setHistoryWarningSink((l) => notices.push(l));
      let err: unknown;
      try {
        await withHistory(res, { mode: 'read', lockWaitMs: 600 }, async () => undefined).catch((e: unknown) => (err = e));
      } finally {
        holder.kill();
        await new Promise((r) => holder.once('exit', r));
        setHistoryWarningSink((l) => process.stderr.write(l));
      }
      expect(err).toBeInstanceOf(UserError);
      const file = join(res, 'history.duckdb');
      expect((err as Error).message).toBe(`${file} stayed locked by process ${holder.pid} (${process.execPath}) for 0.6 s; try again when it has finished (or stop it)`);
      expect(notices).toEqual([`warning: history: ${file} is locked by process ${holder.pid} (${process.execPath}); waiting up to 0.6 s\n`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('a broken history file: the run exits 0 with its results and its row in the journal; reading the history repairs it, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-broken-'));
    try {
      const res = join(dir, 'results');
      const first = await runCli(['sim', 'run', '--result-dir', res, ...SIM]);
      expect(first.code).toBe(0);
      expect((await runCli(['history', '--results-dir', res])).code).toBe(0);
      writeFileSync(join(res, 'history.duckdb'), 'not a database'.repeat(1000));
      const out = await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', 'after']);
      expect(out.code).toBe(0);
      expect(out.stderr).not.toContain('history');
      const runDir = readdirSync(res).find((d) => d.endsWith('-after'))!;
      expect(existsSync(join(res, runDir, 'result.json'))).toBe(true);
      expect(existsSync(join(res, '.history-pending', `${runDir}.json`))).toBe(true);
      // Reading moves the broken file aside and rebuilds it from the run directories (test/history/history-repair.test.ts).
      const read = await runCli(['history', '--results-dir', res, '--json']);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stderr).toMatch(/history\.duckdb was not a readable database .* moved aside/);
      expect((JSON.parse(read.stdout) as Array<{ run_id: string }>).map((r) => r.run_id)).toContain(runDir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two processes finishing at once both land in the history', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-history-race-'));
    try {
      const res = join(dir, 'results');
      const first = await runCli(['sim', 'run', '--result-dir', res, ...SIM, '--name', 'r0']);
      expect(first.code).toBe(0);
      const src = join(res, readdirSync(res).find((d) => d.endsWith('-r0'))!);
      const copies = Array.from({ length: 4 }, (_, i) => {
        const d = join(res, `copy${i}`);
        cpSync(src, d, { recursive: true });
        const r = JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) as RunResult;
        r.run.id = `copy${i}`;
        writeFileSync(join(d, 'result.json'), JSON.stringify(r));
        return d;
      });
      // Each child journals two runs at once; the reader then folds all four.
      const script = (ds: string[]) =>
        `import { indexRun } from ${JSON.stringify(new URL('../../src/history/history-index.ts', import.meta.url).pathname)};
         for (const d of ${JSON.stringify(ds)}) { const w = await indexRun(${JSON.stringify(res)}, d); if (w) console.log(w); }`;
      const children = [copies.slice(0, 2), copies.slice(2)].map(
        (ds) =>
          new Promise<string>((resolve, reject) => {
            const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(ds)], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            c.stdout.on('data', (b: Buffer) => (out += b.toString()));
            c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`indexer exited ${code}`))));
          }),
      );
      const outs = await Promise.all(children);
      expect(outs.join('')).toBe(''); // no warnings
      const rows = await json<Row[]>(['history', '--results-dir', res]);
      expect(rows.map((r) => r.run_id).sort()).toEqual([src.split('/').pop(), 'copy0', 'copy1', 'copy2', 'copy3'].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
