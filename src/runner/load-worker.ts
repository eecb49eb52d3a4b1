/**
 * Worker-thread entry: runs one shard of the load and streams its records to the
 * coordinator in batches (chunk-time buffers are transferred, not copied).
 *
 * Messages in:  {type:'start', originNs} | {type:'cancel'}
 * Messages out: {type:'ready'} | {type:'records', records, checks} | {type:'progress', p} | {type:'done', outcome} | {type:'failed', message, user}
 */
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../errors/user-error.js';
import type { RequestRecord } from '../record/record.js';
import { prepareJob, type LoadJob } from './load-job.js';
import type { AnswerCheck } from './loop-context.js';

const BATCH_RECORDS = 256;
const BATCH_MS = 100;

const port = parentPort!;
const job = workerData as LoadJob;
const abort = new AbortController();
let start: (originNs: string) => void = () => {};
const started = new Promise<string>((r) => (start = r));
port.on('message', (msg: { type: string; originNs?: string }) => {
  if (msg.type === 'cancel') abort.abort();
  else if (msg.type === 'start') start(msg.originNs!);
});

let batch: RequestRecord[] = [];
/** The answer check of each batched record (null: none), in the batch's order. */
let checks: Array<AnswerCheck | null> = [];
let timer: NodeJS.Timeout | null = null;
function flush(): void {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  if (batch.length === 0) return;
  const records = batch;
  const recordChecks = checks;
  batch = [];
  checks = [];
  port.postMessage({ type: 'records', records, checks: recordChecks }, records.map((r) => r.chunk_ms.buffer as ArrayBuffer));
}

async function main() {
  const prepared = await prepareJob(job);
  port.postMessage({ type: 'ready' });
  const originNs = await started;
  return prepared.run(originNs, {
    onRecord,
    onProgress: (p) => port.postMessage({ type: 'progress', p }),
    signal: abort.signal,
  });
}

function onRecord(rec: RequestRecord, check?: AnswerCheck): void {
  batch.push(rec);
  checks.push(check ?? null);
  if (batch.length >= BATCH_RECORDS) flush();
  else if (!timer) timer = setTimeout(flush, BATCH_MS);
}

main().then(

  (outcome) => {
    flush();
    // Records went out in batches already; the outcome carries only the rest.
    port.postMessage({ type: 'done', outcome: { ...outcome, records: [] } });
  },
  (err: unknown) => {
    flush();
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err), user: err instanceof UserError });
  },
);
