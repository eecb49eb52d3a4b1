/**
 * One DuckDB instance for a process that reads the history many times at once (the dashboard):
 * its page asks for runs, trends, load curves and charts in parallel, and each of those opening
 * the file for itself, one after another (history-db.ts serializes a process's opens), made the
 * page take seconds to settle (issue 31). Here every read gets one of a few connections of one
 * read-only instance; DuckDB runs queries of several connections of an instance concurrently.
 *
 * The instance is opened lazily and closed after a short idle spell, so the file is not held
 * against another process's write (`infermeter history` folding the journal) for longer than a
 * burst of requests. When the journal holds rows the instance is closed once its reads are done,
 * the rows are folded in by the ordinary path (withOwnHistory), and it is opened again.
 *
 * Answers computed from the history can be kept (`cached`) for as long as the history's version
 * stays the same: the page asks for the runs every few seconds and draws the same charts on every
 * load, and a kept answer needs no open at all. Invariants:
 * - While the instance is open the file cannot change: the instance holds DuckDB's file lock, so
 *   no other process writes it. The version is then the file's signature taken just after the open.
 * - While it is closed, the version is the file's signature now (inode, size, change and
 *   modification times of history.duckdb and its .wal): every write changes one of them.
 * - Journal rows waiting are folded in (the file written) before a version is taken.
 * An answer computed over a newer instance than the version it is kept under is never served
 * stale: the signature only moves forward, so that version does not come back.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DDL, HISTORY_FILE, HISTORY_SCHEMA, OFFLINE, retryOnLock, shareHistoryReads, withOwnHistory } from './history-db.js';
import { hasJournal } from './history-journal.js';

export interface HistoryPoolOptions {
  /** Idle connections kept (more are opened under load, then closed). */
  connections?: number;
  /** The instance closes after this long without a read. */
  idleMs?: number;
}

export class HistoryReadPool {
  private instance: DuckDBInstance | null = null;
  private idle: DuckDBConnection[] = [];
  private active = 0;
  private reopening: Promise<void> | null = null;
  private drained: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly connections: number;
  private readonly idleMs: number;
  /** Instances opened so far (a burst of reads should open one). */
  opens = 0;
  /** The file's signature when the open instance was opened. */
  private openedVersion = '';
  /** Answers kept for `answersVersion` (oldest first, for the bound). */
  private answers = new Map<string, Promise<unknown>>();
  private answersVersion: string | null = null;

  constructor(
    private readonly resultsDir: string,
    opts: HistoryPoolOptions = {},
  ) {
    this.connections = opts.connections ?? 4;
    this.idleMs = opts.idleMs ?? 1000;
  }

  /** Runs `fn` on one of the instance's connections (opening it, or folding the journal in first, as needed). */
  async use<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.reopening) await this.reopening;
    if (this.instance === null || hasJournal(this.resultsDir)) {
      this.reopening ??= this.reopen().finally(() => (this.reopening = null));
      await this.reopening;
    }
    const instance = this.instance;
    if (instance === null) throw new Error('history: the shared reader did not open');
    this.active++;
    if (this.timer) clearTimeout(this.timer);
    let c: DuckDBConnection | undefined;
    try {
      c = this.idle.pop() ?? (await this.connect(instance));
      return await fn(c);
    } finally {
      this.active--;
      if (c) {
        if (this.idle.length < this.connections && this.instance === instance) this.idle.push(c);
        else c.closeSync();
      }
      if (this.active === 0) {
        for (const d of this.drained.splice(0)) d();
        this.timer = setTimeout(() => this.active === 0 && !this.reopening && this.closeNow(), this.idleMs);
        this.timer.unref();
      }
    }
  }

  /**
   * The answer kept under `key` for the history's version now, else `compute()`'s (kept while the
   * version holds; a failure is not kept). Answers that come together share one computation.
   */
  async cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.reopening) await this.reopening;
    if (hasJournal(this.resultsDir)) {
      this.reopening ??= this.reopen().finally(() => (this.reopening = null));
      await this.reopening;
    }
    const version = this.instance !== null ? this.openedVersion : historyVersion(this.resultsDir);
    if (version !== this.answersVersion) {
      this.answers.clear();
      this.answersVersion = version;
    }
    const kept = this.answers.get(key);
    if (kept) return kept as Promise<T>;
    const answer = compute();
    if (this.answers.size >= MAX_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    answer.catch(() => this.answers.get(key) === answer && this.answers.delete(key));
    return answer;
  }

  /** Closes the instance once its reads are done; later reads open it again. */
  async close(): Promise<void> {
    await this.drain();
    this.closeNow();
  }

  private async connect(instance: DuckDBInstance): Promise<DuckDBConnection> {
    const c = await instance.connect();
    await c.run(`SET TimeZone = 'UTC'`);
    return c;
  }

  private drain(): Promise<void> {
    return this.active === 0 ? Promise.resolve() : new Promise((r) => this.drained.push(r));
  }

  private closeNow(): void {
    for (const c of this.idle.splice(0)) c.closeSync();
    this.instance?.closeSync();
    this.instance = null;
  }

  private async reopen(): Promise<void> {
    await this.close();
    // The ordinary read path folds the journal, upgrades an older file and checks its format.
    await withOwnHistory(this.resultsDir, { mode: 'read' }, async () => undefined);
    const path = join(this.resultsDir, HISTORY_FILE);
    if (existsSync(path)) {
      this.instance = await retryOnLock(path, () => DuckDBInstance.create(path, { ...OFFLINE, access_mode: 'READ_ONLY' }));
      // After the open: from here until the close no other process can write the file.
      this.openedVersion = historyVersion(this.resultsDir);
    } else {
      // Matches no file's signature: a file that appears meanwhile is read after the close.
      this.openedVersion = `empty, in memory (open ${this.opens + 1})`;
      // No history yet: an empty one in memory, as a single read gets.
      this.instance = await DuckDBInstance.create(':memory:', OFFLINE);
      const c = await this.instance.connect();
      for (const sql of DDL) await c.run(sql);
      await c.run(`INSERT OR REPLACE INTO meta VALUES ('schema', ?)`, [HISTORY_SCHEMA]);
      this.idle.push(c);
      await c.run(`SET TimeZone = 'UTC'`);
    }
    this.opens++;
  }
}

/** Answers kept at once: the page's own few, and some other specs, metrics and groups. */
const MAX_ANSWERS = 64;

/** The history file's signature: what any write to it (or to its write-ahead log) changes. */
export function historyVersion(resultsDir: string): string {
  const path = join(resultsDir, HISTORY_FILE);
  return [path, `${path}.wal`]
    .map((p) => {
      try {
        const s = statSync(p, { bigint: true });
        return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** Routes this process's reads of `resultsDir` through one pool (withHistory) until `stop`. */
export function shareHistory(resultsDir: string, opts: HistoryPoolOptions = {}): { pool: HistoryReadPool; stop: () => Promise<void> } {
  const pool = new HistoryReadPool(resultsDir, opts);
  shareHistoryReads(resultsDir, (fn) => pool.use(fn));
  return {
    pool,
    stop: async () => {
      shareHistoryReads(resultsDir, null);
      await pool.close();
    },
  };
}
