/**
 * A finished run's directory kept on NATS, so it outlives the coordinator's pod: every file of
 * the run directory in a JetStream object store bucket named after the run id, and last a note
 * saying the run finished and with which exit code. A coordinator restarted after that note
 * reports the run instead of waiting for workers that are gone; `infermeter k8s fetch` writes
 * the files back as a run directory (docs/distributed.md §Results on NATS).
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { COLUMNS_FILE } from '../record/record-columns.js';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { UserError } from '../errors/user-error.js';
import { decodeJson, encodeJson } from './protocol.js';
import type { NatsLink, ObjectBucket } from './nats-link.js';

/** The bucket of a run id's results (bucket names allow letters, digits, "-" and "_", as run ids do). */
export function resultsBucketOf(runId: string): string {
  return `infermeter-results-${runId}`;
}

/** The object saying the run finished; not a file of the run directory. */
export const FINISHED_OBJECT = '.infermeter-finished.json';

export interface FinishedRun {
  run_id: string;
  /** The coordinator's exit code: the run's verdict (src/errors/exit-codes.ts). */
  exit_code: number;
  /** The run directory's own name (results/<timestamp>-<name>); null when nothing was saved. */
  dir_name: string | null;
  files: number;
  bytes: number;
  finished_at: string;
  /** result.json's content (secrets removed): a restarted coordinator prints it again. */
  result: Record<string, unknown>;
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      // records.cols is a cache of this machine's read (its identity check fails anywhere else).
      else if (e.isFile() && e.name !== COLUMNS_FILE) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

const toWeb = (path: string) => Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>;
const bytesStream = (data: Uint8Array) => new Blob([data]).stream();

/**
 * Stores every file under `dir` (null: nothing was saved) and then the finished note. Files
 * first: a note present means the files are all there.
 */
export async function storeRunDir(link: NatsLink, runId: string, dir: string | null, result: object, exitCode: number): Promise<FinishedRun> {
  const bucket = (await link.bucket(resultsBucketOf(runId), true))!;
  let bytes = 0;
  const files = dir ? filesUnder(dir) : [];
  for (const file of files) {
    bytes += statSync(file).size;
    await bucket.put(relative(dir!, file).split(sep).join('/'), toWeb(file));
  }
  const note: FinishedRun = { run_id: runId, exit_code: exitCode, dir_name: dir ? resolve(dir).split(sep).at(-1)! : null, files: files.length, bytes, finished_at: new Date().toISOString(), result: result as Record<string, unknown> };
  await bucket.put(FINISHED_OBJECT, bytesStream(encodeJson(note)));
  return note;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function finishedNote(bucket: ObjectBucket): Promise<FinishedRun | null> {
  const data = await bucket.get(FINISHED_OBJECT);
  return data ? decodeJson<FinishedRun>(await readAll(data)) : null;
}

/** The run's finished note, if its results were stored; null otherwise. */
export async function finishedRun(link: NatsLink, runId: string): Promise<FinishedRun | null> {
  const bucket = await link.bucket(resultsBucketOf(runId), false);
  return bucket ? finishedNote(bucket) : null;
}

/**
 * Writes the stored run directory into `outDir` (which must not exist, or be empty): the same
 * files, so analyze, report, compare and history read it as the run directory it was.
 */
export async function fetchRunDir(link: NatsLink, runId: string, outDir: string): Promise<FinishedRun> {
  const bucket = await link.bucket(resultsBucketOf(runId), false);
  const note = bucket ? await finishedNote(bucket) : null;
  if (!bucket || !note) throw new UserError(`run id ${runId}: no stored results on NATS (bucket ${resultsBucketOf(runId)}${bucket ? ' holds no finished run' : ' does not exist'}); check the id (the manifests' --name) and the NATS URL`);
  if (note.dir_name === null) throw new UserError(`run id ${runId}: the run finished (exit ${note.exit_code}) but saved no run directory (output.save was false)`);
  if (existsSync(outDir) && (!statSync(outDir).isDirectory() || readdirSync(outDir).length > 0)) throw new UserError(`--out ${outDir}: exists and is not an empty directory; give a new one`);
  const root = resolve(outDir);
  for (const obj of await bucket.list()) {
    if (obj.name === FINISHED_OBJECT) continue;
    const path = resolve(root, obj.name);
    // A name is a relative path inside the run directory; anything else is not ours to write.
    if (!path.startsWith(root + sep)) continue;
    mkdirSync(dirname(path), { recursive: true });
    const data = await bucket.get(obj.name);
    if (!data) continue;
    await pipeline(Readable.fromWeb(data as unknown as NodeReadableStream<Uint8Array>), createWriteStream(path));
  }
  mkdirSync(root, { recursive: true });
  return note;
}
