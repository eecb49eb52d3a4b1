/**
 * Hugging Face datasets (`--dataset-name hf --dataset-path ID_OR_PATH`), offline first:
 * 1. a local file (.jsonl, .json, .csv) or directory (e.g. a downloaded dataset repo);
 * 2. a hub id found in the local cache (`$HF_HUB_CACHE` or `$HF_HOME/hub`, `datasets--org--name`);
 * 3. online only: the dataset viewer's rows API (`$HF_DATASETS_SERVER`, default
 *    datasets-server.huggingface.co), paged, at most HF_MAX_ROWS rows.
 * In a directory, files for `hf_split` are chosen by name (`train.jsonl`, `data/train-00000.jsonl`,
 * …), under the `hf_subset` folder when there is one. Rows are read like generic JSONL records;
 * `hf_prompt_field` names the input column when auto-detection (prompt, text, question, input,
 * messages, conversations) is not enough. Parquet files are not read.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import type { SubWorkloadSpec } from '../spec.js';
import { csvRecords } from './csv.js';
import type { Entry } from './entries.js';
import { Issues } from './entries.js';
import { objectEntry } from './jsonl.js';
import { jsonErrorLine } from './json-text.js';
import { eachJson, readBytes } from './sharegpt.js';

export const HF_MAX_ROWS = 10_000;
const READABLE = /\.(jsonl|json|csv)$/i;

export interface HfLoad {
  entries: Entry[];
  issues: Issues;
  source: string;
}

export async function readHf(spec: SubWorkloadSpec, warn: (m: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<HfLoad> {
  const id = spec.dataset_path as string;
  const local = existsSync(id) ? id : hubDatasetCache(id, env);
  if (local) {
    const files = statSync(local).isDirectory() ? pickFiles(local, spec.hf_split, spec.hf_subset) : [local];
    if (files.length === 0) throw new UserError(`workload.dataset_path: no .jsonl/.json/.csv files for split ${spec.hf_split} under ${local}`);
    const entries: Entry[] = [];
    const issues = new Issues(files[0] as string, warn);
    for (const f of files) {
      issues.file = f;
      entries.push(...(await readRowsFile(f, issues, spec.hf_prompt_field)));
    }
    return { entries, issues, source: local };
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(id)) throw new UserError(`workload.dataset_path: ${id} is not a file, directory or hub dataset id`);
  return readHubRows(id, spec, warn, env);
}

/** Snapshot directory of a hub dataset in the local cache, or null. */
export function hubDatasetCache(id: string, env: NodeJS.ProcessEnv): string | null {
  const hubRoot = env['HF_HUB_CACHE'] ?? join(env['HF_HOME'] ?? join(homedir(), '.cache', 'huggingface'), 'hub');
  const snapshots = join(hubRoot, `datasets--${id.replace(/\//g, '--')}`, 'snapshots');
  if (!existsSync(snapshots)) return null;
  const snap = readdirSync(snapshots).sort().at(-1);
  return snap ? join(snapshots, snap) : null;
}

/** Readable files of `split` under `dir` (recursively), inside `subset/` when it exists. */
export function pickFiles(dir: string, split: string, subset: string | null): string[] {
  const root = subset && existsSync(join(dir, subset)) ? join(dir, subset) : dir;
  const all: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.')) continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (READABLE.test(name)) all.push(p);
    }
  };
  walk(root);
  const forSplit = all.filter((p) => new RegExp(`(^|[/_.-])${split}([/_.-]|$)`).test(relative(root, p)));
  return forSplit.length > 0 ? forSplit : all;
}

async function readRowsFile(path: string, issues: Issues, field: string | null): Promise<Entry[]> {
  const buf = await readBytes(path, 'workload.dataset_path');
  const out: Entry[] = [];
  const take = (row: unknown, line: number, index: number | null = null): void => {
    const r = objectEntry(row, line, field);
    if (typeof r !== 'string') out.push(r);
    else issues.skip(line, index === null ? r : `entry ${index}: ${r}`);
  };
  if (/\.csv$/i.test(path)) {
    for (const { line, record } of csvRecords(buf.toString('utf8')).records) take(record, line);
  } else if (/^\s*\{\s*"rows"/.test(buf.toString('utf8', 0, 64))) {
    // A saved rows-API page: {"rows": [{"row_idx": …, "row": {…}}, …]}.
    const text = buf.toString('utf8');
    let data: { rows?: Array<{ row_idx?: number; row: unknown }> };
    try {
      data = JSON.parse(text) as typeof data;
    } catch (e) {
      const line = jsonErrorLine(text, e);
      throw new UserError(`${path}${line ? `:${line}` : ''}: workload.dataset_path: invalid JSON: ${(e as Error).message}`);
    }
    (data.rows ?? []).forEach((r, i) => take(r.row, (r.row_idx ?? i) + 1));
  } else {
    eachJson(buf, path, issues, take);
  }
  return out;
}

async function readHubRows(id: string, spec: SubWorkloadSpec, warn: (m: string) => void, env: NodeJS.ProcessEnv): Promise<HfLoad> {
  if (env['HF_HUB_OFFLINE'] === '1' || env['HF_DATASETS_OFFLINE'] === '1') {
    throw new UserError(`workload.dataset_path: ${id} is not a local path or cached dataset, and the hub is offline (HF_HUB_OFFLINE)`);
  }
  const base = (env['HF_DATASETS_SERVER'] ?? 'https://datasets-server.huggingface.co').replace(/\/$/, '');
  const headers: Record<string, string> = env['HF_TOKEN'] ? { authorization: `Bearer ${env['HF_TOKEN']}` } : {};
  const get = async (url: string): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      throw new UserError(`workload.dataset_path: cannot reach ${url} (offline? give a local file): ${(e as Error).message}`);
    }
    if (!res.ok) throw new UserError(`workload.dataset_path: ${url} answered HTTP ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  let config = spec.hf_subset;
  if (config === null) {
    const splits = (await get(`${base}/splits?dataset=${encodeURIComponent(id)}`))['splits'] as Array<{ config: string; split: string }> | undefined;
    config = splits?.find((s) => s.split === spec.hf_split)?.config ?? splits?.[0]?.config ?? 'default';
  }
  const source = `hf:${id}/${config}/${spec.hf_split}`;
  const issues = new Issues(source, warn);
  const entries: Entry[] = [];
  for (let offset = 0; offset < HF_MAX_ROWS; offset += 100) {
    const q = `dataset=${encodeURIComponent(id)}&config=${encodeURIComponent(config)}&split=${encodeURIComponent(spec.hf_split)}&offset=${offset}&length=100`;
    const page = await get(`${base}/rows?${q}`);
    const rows = (page['rows'] as Array<{ row_idx: number; row: unknown }> | undefined) ?? [];
    for (const r of rows) {
      const e = objectEntry(r.row, r.row_idx + 1, spec.hf_prompt_field);
      if (typeof e === 'string') issues.skip(r.row_idx + 1, e);
      else entries.push(e);
    }
    const total = typeof page['num_rows_total'] === 'number' ? page['num_rows_total'] : 0;
    if (rows.length < 100 || offset + 100 >= total) break;
  }
  return { entries, issues, source };
}
