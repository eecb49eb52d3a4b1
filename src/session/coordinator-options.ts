import { redactUrl } from '../util/redact.js';

/** How a distributed run or sweep is coordinated (`--distributed URL --workers-expected N`, docs/distributed.md). */
export interface CoordinatorFlags {
  natsUrl: string;
  workers: number;
  runId: string;
  /** How long the barrier waits for every worker (and the connection for NATS). */
  workerWaitMs: number;
  /** A worker silent this long is lost. */
  workerTimeoutMs: number;
  /** The start is broadcast this far ahead. */
  startDelayMs: number;
  /** Keep the finished run directory on NATS (distributed/results-store.ts); a restarted coordinator then reports the finished run. */
  storeResults: boolean;
}

/** How to bring a stored run or sweep directory back. */
export function fetchHint(flags: CoordinatorFlags): string {
  return `infermeter k8s fetch ${flags.runId} --nats-url ${redactUrl(flags.natsUrl)} --out DIR`;
}
