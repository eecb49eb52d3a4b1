/**
 * The request metrics as columns of the `sql` command's `records` view (history/history-sql.ts),
 * generated from their definitions so a query over the view gives the run's own figures:
 *
 *   <id> = CASE WHEN <the record is in the metric's population> THEN <def.sql> END
 *
 * The population is computeMetrics' (compute.ts): measure phase, a request's last attempt only
 * (an attempt superseded by a retry has `retried`), and status ok unless the metric is over every
 * attempt (`over: 'all'`). Outside it the column is NULL, which quantile_cont, avg and count skip.
 */
import type { RequestMetricDef } from './metric-def.js';
import { LATENCY_METRICS } from './registry.js';

/** The request metrics that have a SQL form, in report order. */
export const SQL_REQUEST_METRICS: readonly RequestMetricDef[] = LATENCY_METRICS.filter(
  (d): d is Extract<(typeof LATENCY_METRICS)[number], { kind: 'request' }> => d.kind === 'request' && 'sql' in d,
);

/** SQL: whether a records row is in `def`'s population (the figures' rule, above). */
export function populationSql(def: Pick<RequestMetricDef, 'over'>): string {
  return `phase = 'measure' AND retried IS NOT TRUE${def.over === 'ok' ? " AND status = 'ok'" : ''}`;
}

/** `CASE WHEN … THEN … END AS id` for each metric of SQL_REQUEST_METRICS, comma-separated. */
export function requestMetricColumnsSql(): string {
  return SQL_REQUEST_METRICS.map((d) => `CASE WHEN ${populationSql(d)} THEN ${d.sql} END AS ${d.id}`).join(',\n    ');
}
