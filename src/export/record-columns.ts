/**
 * The per-request table the exports write (CSV, Parquet): every field of the record
 * (docs/records.md) plus the request's own latencies, computed by the metric definitions so
 * an export and the report agree. One list, one order, one type per column.
 */
import { SLO_METRICS } from '../metrics/index.js';
import type { RequestRecord } from '../record/record.js';
import { chunkCount } from '../record/record-columns.js';

export type ColumnType = 'int' | 'double' | 'text' | 'double_list';

export interface Column {
  name: string;
  type: ColumnType;
  get(r: RequestRecord): number | string | null | Float64Array;
}

function metric(id: 'ttft_ms' | 'ttft_from_schedule_ms' | 'tpot_ms' | 'e2el_ms'): Column['get'] {
  const def = SLO_METRICS[id];
  return (r) => (r.status === 'ok' && def.kind === 'request' ? def.value(r) : null);
}

const ITL = SLO_METRICS.itl_ms;

export const RECORD_COLUMNS: readonly Column[] = [
  { name: 'id', type: 'int', get: (r) => r.id },
  { name: 'phase', type: 'text', get: (r) => r.phase },
  { name: 'stage', type: 'int', get: (r) => r.stage },
  { name: 'worker', type: 'int', get: (r) => r.worker },
  { name: 'task', type: 'text', get: (r) => r.task },
  { name: 'session', type: 'text', get: (r) => r.session },
  { name: 'turn', type: 'int', get: (r) => r.turn },
  { name: 'scheduled_ms', type: 'double', get: (r) => r.scheduled_ms },
  { name: 'sent_ms', type: 'double', get: (r) => r.sent_ms },
  { name: 'first_token_ms', type: 'double', get: (r) => r.first_token_ms },
  { name: 'end_ms', type: 'double', get: (r) => r.end_ms },
  { name: 'chunk_count', type: 'int', get: (r) => chunkCount(r) },
  { name: 'prompt_tokens', type: 'int', get: (r) => r.prompt_tokens },
  { name: 'client_prompt_tokens', type: 'int', get: (r) => r.client_prompt_tokens },
  { name: 'output_tokens', type: 'int', get: (r) => r.output_tokens },
  { name: 'requested_output_tokens', type: 'int', get: (r) => r.requested_output_tokens },
  { name: 'token_source', type: 'text', get: (r) => r.token_source },
  { name: 'status', type: 'text', get: (r) => r.status },
  { name: 'error_class', type: 'text', get: (r) => r.error_class },
  { name: 'http_status', type: 'int', get: (r) => r.http_status },
  { name: 'finish_reason', type: 'text', get: (r) => r.finish_reason },
  { name: 'error_message', type: 'text', get: (r) => r.error_message },
  // The trace join (docs/records.md): empty for records written before it.
  { name: 'trace_id', type: 'text', get: (r) => r.trace_id ?? null },
  { name: 'response_id', type: 'text', get: (r) => r.response_id ?? null },
  // Media sent with the prompt (records schema 5): empty for text-only requests and older records.
  { name: 'images', type: 'int', get: (r) => r.images ?? null },
  { name: 'image_bytes', type: 'int', get: (r) => r.image_bytes ?? null },
  { name: 'audio_clips', type: 'int', get: (r) => r.audio_clips ?? null },
  { name: 'audio_bytes', type: 'int', get: (r) => r.audio_bytes ?? null },
  // Per-request latencies of ok requests (null otherwise, or where undefined: TPOT of one token).
  { name: 'ttft_ms', type: 'double', get: metric('ttft_ms') },
  { name: 'ttft_from_schedule_ms', type: 'double', get: metric('ttft_from_schedule_ms') },
  { name: 'tpot_ms', type: 'double', get: metric('tpot_ms') },
  { name: 'e2el_ms', type: 'double', get: metric('e2el_ms') },
  { name: 'itl_max_ms', type: 'double', get: (r) => (r.status === 'ok' && ITL.kind === 'pooled' ? ITL.worst(r) : null) },
  { name: 'output_text', type: 'text', get: (r) => r.output_text },
  // The answer check (docs/quality.md), empty for requests without one; pass as 1/0.
  { name: 'quality_kind', type: 'text', get: (r) => r.quality?.kind ?? null },
  { name: 'quality_pass', type: 'int', get: (r) => (r.quality ? (r.quality.pass ? 1 : 0) : null) },
  { name: 'quality_outcome', type: 'text', get: (r) => r.quality?.outcome ?? null },
  { name: 'quality_reason', type: 'text', get: (r) => r.quality?.reason ?? null },
];

/** Parquet only: every chunk's arrival time (a CSV cell cannot hold a list well). */
export const CHUNK_COLUMN: Column = { name: 'chunk_ms', type: 'double_list', get: (r) => r.chunk_ms };
