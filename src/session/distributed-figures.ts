/**
 * What a distributed run or sweep stage reports about its workers, from the coordinator's ledger:
 * the client's health for the validity verdict (every worker's dispatch lateness, the worst event
 * loop) and each worker's line in result.json's `client.distributed.nodes` / a stage's `distributed`.
 */
import type { ClientHealth } from '../analysis/run-validity.js';
import type { JoinedNode } from '../distributed/coordinator.js';
import type { RunLedger } from '../distributed/ledger.js';
import { summarize } from '../metrics/stats.js';
import { hrtimeNowNs } from '../runner/run-clock.js';

/** A start time broadcast to the workers (epoch ms) on this host's monotonic clock: the t = 0 of the server metrics the coordinator scrapes. */
export function originAt(startAtMs: number): string {
  return (BigInt(hrtimeNowNs()) + BigInt(Math.round((startAtMs - Date.now()) * 1e6))).toString();
}

export function ledgerHealth(ledger: RunLedger, burst: boolean): ClientHealth {
  const done = ledger.nodes.map((n) => n.done).filter((d) => d !== null);
  return {
    dispatchLagMs: ledger.dispatchLag(),
    eventLoopDelayP99Ms: done.reduce<number | null>((m, d) => (d.event_loop_delay_p99_ms === null ? m : Math.max(m ?? 0, d.event_loop_delay_p99_ms)), null),
    eventLoopUtilization: done.length > 0 ? Math.max(...done.map((d) => d.event_loop_utilization)) : null,
    burst,
  };
}

/** Load threads, pre-opened connections and stale-socket retries summed over the workers that finished. */
export function ledgerClient(ledger: RunLedger): { workers: number; preconnected: number; stale_socket_retries: number } {
  const done = ledger.nodes.map((n) => n.done).filter((d) => d !== null);
  return {
    workers: done.reduce((n, d) => n + d.threads, 0),
    preconnected: done.reduce((n, d) => n + d.preconnected, 0),
    stale_socket_retries: done.reduce((n, d) => n + d.stale_socket_retries, 0),
  };
}

export function nodesSection(ledger: RunLedger, joined: readonly JoinedNode[]): Array<Record<string, unknown>> {
  return ledger.nodes.map((n) => {
    const j = joined.find((x) => x.node === n.node);
    const lag = [...n.lag.values()].flat();
    return {
      node: n.node,
      host: j?.host ?? null,
      threads: j?.threads ?? null,
      status: n.status,
      lost_reason: n.lostReason,
      records_received: n.received,
      records_published: n.done?.records ?? null,
      clock_offset_ms: j?.clock.offset_ms ?? null,
      clock_rtt_ms: j?.clock.rtt_ms ?? null,
      dispatch_lag_p99_ms: lag.length > 0 ? summarize(Float64Array.from(lag)).p99 : null,
      event_loop_utilization: n.done?.event_loop_utilization ?? null,
      event_loop_delay_p99_ms: n.done?.event_loop_delay_p99_ms ?? null,
    };
  });
}
