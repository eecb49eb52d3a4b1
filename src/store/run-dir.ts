/**
 * The run directory: results/<timestamp>-<name>/ with spec.json (secrets removed),
 * result.json and records.jsonl.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../errors/user-error.js';

/**
 * mkdir -p, one level at a time. Node's own `mkdirSync(p, { recursive: true })` never returns
 * when mkdir fails with ENOENT under a parent that exists (any path under /proc): it retries the
 * parent forever in a synchronous loop, which also keeps Ctrl-C from being handled. Here every
 * failure is an error with its code.
 */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  let p = resolve(path);
  for (;;) {
    try {
      if (!statSync(p).isDirectory()) throw Object.assign(new Error(`${p} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(p);
      const parent = dirname(p);
      if (parent === p) break;
      p = parent;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function timestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export interface RunDir {
  path: string;
  id: string;
  recordsPath: string;
  writeJson(name: string, data: unknown): void;
  /** One JSON value per line (a side file such as server-metrics.jsonl). */
  writeJsonLines(name: string, rows: readonly unknown[]): void;
}

function runDirAt(path: string, id: string): RunDir {
  return {
    path,
    id,
    recordsPath: join(path, 'records.jsonl'),
    writeJson(file: string, data: unknown) {
      writeFileSync(join(path, file), `${JSON.stringify(data, null, 2)}\n`);
    },
    writeJsonLines(file: string, rows: readonly unknown[]) {
      writeFileSync(join(path, file), rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    },
  };
}

/** An existing run directory, written again (a distributed run's restarted coordinator). */
export function openRunDir(path: string): RunDir {
  try {
    if (!statSync(path).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (err) {
    throw new UserError(`${path}: cannot reopen the run directory (${errnoText(err)})`);
  }
  return runDirAt(path, basename(path));
}

export function createRunDir(resultDir: string, name: string, startedAt: Date): RunDir {
  const base = `${timestamp(startedAt)}-${name}`;
  let id = base;
  for (let n = 2; ; n++) {
    const path = join(resultDir, id);
    try {
      makeDirs(resultDir);
      mkdirSync(path);
      return runDirAt(path, id);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        id = `${base}-${n}`;
        continue;
      }
      throw new UserError(`--result-dir ${resultDir}: cannot create the run directory (${errnoText(err)})`);
    }
  }
}

/**
 * The run directory at exactly `path` (a repeat's `<repeat dir>/repeat-k`), with the run id `id`;
 * its parent is made when missing. One that exists already is refused: a run never writes into another's.
 */
export function createRunDirAt(path: string, id: string): RunDir {
  try {
    makeDirs(dirname(path));
    mkdirSync(path);
  } catch (err) {
    throw new UserError(`${path}: cannot create the run directory (${errnoText(err)})`);
  }
  return runDirAt(path, id);
}

/** "ENOENT: no such file or directory" from a Node fs error, without the path Node appends. */
function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (!e.code) return String(err);
  const m = /^[A-Z]+: ([^,]+)/.exec(e.message);
  return m ? `${e.code}: ${m[1]}` : e.code;
}

export function writeJsonFile(path: string, data: unknown, flag: string): void {
  try {
    writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  } catch (err) {
    throw new UserError(`${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
