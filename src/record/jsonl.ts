/**
 * records.jsonl: one RequestRecord per line, field names as in the record (docs/records.md).
 * Times are written with µs resolution (3 decimals of ms); chunk_ms as a plain array.
 */
import { ERROR_CLASSES, PHASES, type RequestRecord } from './record.js';
import { plainRecord } from './record-columns.js';

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** A time as records.jsonl keeps it (1 µs resolution): a figure computed from it is the same live and from the saved run. */
export const atRecordResolution = round3;

/** Stands for chunk_ms in the stringified record until the chunks' text replaces it. */
const SLOT = '\u0000chunk_ms\u0000';
const SLOT_JSON = JSON.stringify(SLOT);

/** One chunk time as records.jsonl writes it (µs resolution). */
export function chunkTimeJson(v: number): string {
  return JSON.stringify(round3(v));
}

/**
 * recordToJsonLine's line around its chunk_ms array: line = head + "[" + chunk times + "]" + tail,
 * for a caller that has the chunk times' text already (virtual time formats each step's end
 * once, src/sim/step-timeline.ts). Null in the one case the place is ambiguous: a string field
 * holding the placeholder's own text (never in practice).
 */
export function recordToJsonLineParts(record: RequestRecord): { head: string; tail: string } | null {
  const rec = plainRecord(record);
  const line = JSON.stringify({
    ...rec,
    scheduled_ms: round3(rec.scheduled_ms),
    sent_ms: round3(rec.sent_ms),
    first_token_ms: rec.first_token_ms === null ? null : round3(rec.first_token_ms),
    end_ms: round3(rec.end_ms),
    chunk_ms: SLOT,
    ...(rec.first_reasoning_ms != null ? { first_reasoning_ms: round3(rec.first_reasoning_ms) } : {}),
    ...(rec.first_answer_ms != null ? { first_answer_ms: round3(rec.first_answer_ms) } : {}),
  });
  const at = line.indexOf(SLOT_JSON);
  if (at < 0 || line.indexOf(SLOT_JSON, at + 1) >= 0) return null;
  return { head: line.slice(0, at), tail: line.slice(at + SLOT_JSON.length) };
}

export function recordToJsonLine(record: RequestRecord): string {
  const rec = plainRecord(record);
  const chunks = new Array<number>(rec.chunk_ms.length);
  for (let i = 0; i < chunks.length; i++) chunks[i] = round3(rec.chunk_ms[i]!);
  return JSON.stringify({
    ...rec,
    scheduled_ms: round3(rec.scheduled_ms),
    sent_ms: round3(rec.sent_ms),
    first_token_ms: rec.first_token_ms === null ? null : round3(rec.first_token_ms),
    end_ms: round3(rec.end_ms),
    chunk_ms: chunks,
    ...(rec.first_reasoning_ms != null ? { first_reasoning_ms: round3(rec.first_reasoning_ms) } : {}),
    ...(rec.first_answer_ms != null ? { first_answer_ms: round3(rec.first_answer_ms) } : {}),
  });
}

export class RecordParseError extends Error {}

const num = (v: unknown, field: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RecordParseError(`field "${field}" must be a number`);
  return v;
};
const numOrNull = (v: unknown, field: string): number | null => (v == null ? null : num(v, field));
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The retry fields (--retries), only when the line has them. */
function retryFields(o: Record<string, unknown>): Pick<RequestRecord, 'attempt' | 'retried' | 'retry_after_ms'> {
  const out: Pick<RequestRecord, 'attempt' | 'retried' | 'retry_after_ms'> = {};
  if (o.attempt != null) out.attempt = num(o.attempt, 'attempt');
  if (o.retried === true) out.retried = true;
  if (o.retry_after_ms != null) out.retry_after_ms = num(o.retry_after_ms, 'retry_after_ms');
  return out;
}

/** Parses one line; throws RecordParseError naming the field on bad input. */
export function recordFromJsonLine(line: string): RequestRecord {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new RecordParseError('not valid JSON');
  }
  return recordFromObject(o, null);
}

/**
 * The record of one parsed line; `chunks`, when given, are its chunk times already read (the
 * reader's scan of the line's bytes, src/store/records-reader.ts), else o.chunk_ms is read.
 */
export function recordFromObject(o: Record<string, unknown>, chunks: Float64Array | null): RequestRecord {
  if (typeof o !== 'object' || o === null) throw new RecordParseError('not a JSON object');
  const phase = o.phase ?? 'measure';
  if (!(PHASES as readonly unknown[]).includes(phase)) throw new RecordParseError(`unknown phase "${String(phase)}"`);
  const status = o.status;
  if (status !== 'ok' && status !== 'error' && status !== 'timeout' && status !== 'cancelled') {
    throw new RecordParseError(`unknown status "${String(status)}"`);
  }
  const errorClass = o.error_class ?? null;
  if (errorClass !== null && !(ERROR_CLASSES as readonly unknown[]).includes(errorClass)) {
    throw new RecordParseError(`unknown error_class "${String(errorClass)}"`);
  }
  chunks ??= chunkTimesOf(o.chunk_ms);
  const source = o.token_source ?? 'none';
  return {
    id: num(o.id, 'id'),
    phase: phase as RequestRecord['phase'],
    stage: numOrNull(o.stage, 'stage') ?? 0,
    worker: numOrNull(o.worker, 'worker') ?? 0,
    task: strOrNull(o.task),
    session: strOrNull(o.session),
    turn: numOrNull(o.turn, 'turn'),
    scheduled_ms: num(o.scheduled_ms ?? o.sent_ms, 'scheduled_ms'),
    sent_ms: num(o.sent_ms, 'sent_ms'),
    first_token_ms: numOrNull(o.first_token_ms, 'first_token_ms'),
    chunk_ms: chunks,
    end_ms: num(o.end_ms, 'end_ms'),
    prompt_tokens: numOrNull(o.prompt_tokens, 'prompt_tokens'),
    output_tokens: num(o.output_tokens ?? 0, 'output_tokens'),
    requested_output_tokens: numOrNull(o.requested_output_tokens, 'requested_output_tokens'),
    token_source: source === 'usage' || source === 'tokenizer' || source === 'chunks' ? source : 'none',
    client_prompt_tokens: numOrNull(o.client_prompt_tokens, 'client_prompt_tokens'),
    status,
    error_class: errorClass as RequestRecord['error_class'],
    http_status: numOrNull(o.http_status, 'http_status'),
    finish_reason: strOrNull(o.finish_reason),
    error_message: strOrNull(o.error_message),
    output_text: strOrNull(o.output_text),
    ...reasoningFields(o),
    ...retryFields(o),
    ...(o.node != null ? { node: num(o.node, 'node') } : {}),
    ...(o.prompt_messages != null ? { prompt_messages: num(o.prompt_messages, 'prompt_messages') } : {}),
    ...(o.inputs != null ? { inputs: num(o.inputs, 'inputs') } : {}),
    ...(o.images != null ? { images: num(o.images, 'images'), image_bytes: num(o.image_bytes ?? 0, 'image_bytes') } : {}),
    ...(o.audio_clips != null ? { audio_clips: num(o.audio_clips, 'audio_clips'), audio_bytes: num(o.audio_bytes ?? 0, 'audio_bytes') } : {}),
    ...(typeof o.trace_id === 'string' ? { trace_id: o.trace_id } : {}),
    ...(typeof o.response_id === 'string' ? { response_id: o.response_id } : {}),
    ...qualityField(o),
    ...(o.events_after_done != null ? { events_after_done: num(o.events_after_done, 'events_after_done') } : {}),
    ...(typeof o.usage_rejected === 'string' ? { usage_rejected: o.usage_rejected } : {}),
  };
}

function chunkTimesOf(v: unknown): Float64Array {
  if (!Array.isArray(v ?? [])) throw new RecordParseError('field "chunk_ms" must be an array');
  const raw = (v as unknown[] | undefined) ?? [];
  // A plain loop: Float64Array.from with a map function costs several times more per chunk time,
  // and chunk times are most of a long run's records.
  const chunks = new Float64Array(raw.length);
  for (let i = 0; i < raw.length; i++) chunks[i] = num(raw[i], 'chunk_ms');
  return chunks;
}

/** The answer check's outcome (docs/quality.md), only when the line has one. */
function qualityField(o: Record<string, unknown>): Pick<RequestRecord, 'quality'> {
  const q = o.quality;
  if (q == null) return {};
  if (typeof q !== 'object' || Array.isArray(q)) throw new RecordParseError('field "quality" must be an object');
  const { kind, pass, outcome, reason } = q as Record<string, unknown>;
  if (typeof kind !== 'string' || typeof pass !== 'boolean' || typeof outcome !== 'string') {
    throw new RecordParseError('field "quality" needs kind (string), pass (boolean) and outcome (string)');
  }
  return { quality: { kind, pass, outcome, reason: typeof reason === 'string' ? reason : '' } };
}

/** The optional reasoning fields, kept only when the line has them (absent: no reasoning). */
function reasoningFields(o: Record<string, unknown>): Pick<RequestRecord, 'first_reasoning_ms' | 'first_answer_ms' | 'reasoning_tokens'> {
  const out: Pick<RequestRecord, 'first_reasoning_ms' | 'first_answer_ms' | 'reasoning_tokens'> = {};
  if ('first_reasoning_ms' in o) out.first_reasoning_ms = numOrNull(o.first_reasoning_ms, 'first_reasoning_ms');
  if ('first_answer_ms' in o) out.first_answer_ms = numOrNull(o.first_answer_ms, 'first_answer_ms');
  if (o.reasoning_tokens != null) out.reasoning_tokens = num(o.reasoning_tokens, 'reasoning_tokens');
  return out;
}
