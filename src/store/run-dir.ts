/**
 * The run directory: results/<timestamp>-<name>/ with spec.json (secrets removed),
 * result.json and records.jsonl.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';


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

export function createRunDir(resultDir: string, name: string, startedAt: Date): RunDir {
  const base = `${timestamp(startedAt)}-${name}`;
  let id = base;
  for (let n = 2; ; n++) {
    const path = join(resultDir, id);
    try {
      mkdirSync(resultDir, { recursive: true });
      mkdirSync(path);
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
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        id = `${base}-${n}`;
        continue;
      }
      throw new UserError(`--result-dir ${resultDir}: cannot create the run directory (${code ?? String(err)})`);
    }
  }
}

export function writeJsonFile(path: string, data: unknown, flag: string): void {
  try {
    writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
  } catch (err) {
    throw new UserError(`${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
