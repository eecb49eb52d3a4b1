/**
 * records.cols for a run that has just written its records (issue 31): the columns built from the
 * records in memory, in the order they were written, instead of reading records.jsonl back — so
 * the first analyze, report or compare of a virtual day loads columns rather than parsing ~2 GB.
 *
 * The columns must be the ones a read of the text builds (store/records-reader.ts), value for
 * value, or a figure would depend on which read came first. A record whose line is the plain
 * shape (no field beyond the scanned ones, every number finite) is added with the values its line
 * reads back as: times at the writer's µs (jsonl.ts atRecordResolution; the line's digits are that
 * whole number of µs, and the double JSON.parse gives is µs / 1000), −0 as 0 (JSON writes "0");
 * any other record goes through its line: recordToJsonLine, then the reader's parser. The test
 * compares the file written here with the one a read of the text writes, byte for byte.
 */
import { atRecordResolution, recordFromJsonLine, recordToJsonLine } from '../record/jsonl.js';
import { newScannedRecord } from '../record/jsonl-line-scan.js';
import { keepsTimeline, storedAsGaps } from '../record/chunk-store.js';
import { EXTRA_KEYS, RecordColumns } from '../record/record-columns.js';
import { findSharedTimeline } from '../record/shared-timeline.js';
import type { RequestRecord } from '../record/record.js';
import { stepStretchOf, type SharedTimeline } from '../record/step-stretch.js';
import { keepsColumnsFile, saveColumnsFile, sourceIdentity } from './records-columns-file.js';

/** A number as its text reads back: −0 is written "0". */
const EMPTY = new Float64Array(0);
const asRead = (v: number): number => (v === 0 ? 0 : v);
const finiteOrNull = (v: number | null): boolean => v === null || Number.isFinite(v);

/** Every field of the record a line can hold, as a plain object (a columnar store's view has them as getters, which a spread does not copy). */
const FIELDS = [...Object.keys(newScannedRecord()), ...EXTRA_KEYS] as (keyof RequestRecord)[];
function fieldsOf(r: RequestRecord): RequestRecord {
  const o: Record<string, unknown> = {};
  for (const k of FIELDS) if (r[k] !== undefined) o[k] = r[k];
  return o as unknown as RequestRecord;
}

/** Each step time of a timeline as the writer's whole µs, computed once per timeline (its steps are far fewer than its records' chunks). */
class StepMicros {
  private readonly byTimeline = new Map<SharedTimeline, Float64Array>();
  of(t: SharedTimeline): Float64Array {
    let m = this.byTimeline.get(t);
    if (m === undefined || m.length < t.length) {
      m = new Float64Array(t.length);
      for (let k = 0; k < t.length; k++) m[k] = asRead(Math.round(t.at(k) * 1000));
      this.byTimeline.set(t, m);
    }
    return m;
  }
}

/** Whether r's line holds only the fields the columns' scan reads, each a finite number where a number. */
function plainLine(r: RequestRecord): boolean {
  for (const k of EXTRA_KEYS) {
    const v = r[k];
    if (v !== undefined && !(v === null && (k === 'error_message' || k === 'output_text'))) return false;
  }
  return (
    Number.isFinite(r.id) && Number.isFinite(r.stage) && Number.isFinite(r.worker) && finiteOrNull(r.turn) && Number.isFinite(r.scheduled_ms) &&
    Number.isFinite(r.sent_ms) && finiteOrNull(r.first_token_ms) && Number.isFinite(r.end_ms) && finiteOrNull(r.prompt_tokens) &&
    Number.isFinite(r.output_tokens) && finiteOrNull(r.requested_output_tokens) && finiteOrNull(r.client_prompt_tokens) && finiteOrNull(r.http_status)
  );
}

/** What the writer's line of one record reads back as: the record, and its chunk times' µs when they are kept as gaps. */
interface ReadBack {
  rec: RequestRecord;
  /** The µs of its chunk times (the first `count`), or null when the store keeps them as doubles. */
  micros: Float64Array | null;
  count: number;
}

/**
 * Writes records.cols beside `recordsPath` from `records`, the run's records in the order its
 * writer wrote them, one line each (records-columns-file.ts decides when a file is kept: a
 * finished run, result.json beside). Returns whether it was written.
 *
 * The shared step timeline is found first, over the µs of the same candidates a read looks at
 * (chunk-store.ts shareTimeline), so the records on it are stored as stretches without ever
 * being coded as gaps: what a read ends with, at a fraction of the time and memory.
 */
export function keepWrittenColumns(recordsPath: string, records: readonly RequestRecord[]): boolean {
  const source = keepsColumnsFile(recordsPath) ? sourceIdentity(recordsPath) : null;
  if (source === null) return false;
  const reader = new ReadBackOf(records);
  const cand = new Int32Array(records.length);
  const firsts = new Float64Array(records.length);
  const counts = new Int32Array(records.length);
  let m = 0;
  for (let i = 0; i < records.length; i++) {
    const b = reader.of(i);
    if (b.micros !== null && b.count >= 2 && RecordColumns.fitsColumns(b.rec) && storedAsGaps(b.micros, b.count)) {
      cand[m] = i;
      firsts[m] = b.micros[0]!;
      counts[m++] = b.count;
    }
  }
  const found = findSharedTimeline({
    n: m,
    firstMicros: (c) => firsts[c]!,
    count: (c) => counts[c]!,
    decodeMicros: (c, out) => out.set(reader.microsOf(cand[c]!).subarray(0, counts[c]!)),
  });
  const shared = keepsTimeline(found);
  const columns = new RecordColumns();
  for (let i = 0, c = 0; i < records.length; i++) {
    const b = reader.of(i);
    const first = c < m && cand[c] === i ? found.first[c++]! : -1;
    if (shared && first >= 0) columns.addOnTimeline(b.rec, b.micros!, b.count, first);
    else if (b.micros !== null) columns.add(b.rec, b.micros, b.count);
    else columns.add(b.rec);
  }
  if (shared) columns.adoptChunkTimeline(found.micros);
  return saveColumnsFile(recordsPath, source, { columns, lineOf: (i) => i + 1, truncatedTail: false });
}

/** The records as their lines read back, one at a time (the µs buffer is reused: valid until the next call). */
class ReadBackOf {
  private readonly stepMicros = new StepMicros();
  private micros = new Float64Array(1024);
  /** Records whose lines go through the parser (few: failures, texts, checks), by position. */
  private readonly parsed = new Map<number, ReadBack>();
  /** Per record, 1 once known to go through the parser, 2 once known not to. */
  private readonly kind: Uint8Array;

  constructor(private readonly records: readonly RequestRecord[]) {
    this.kind = new Uint8Array(records.length);
  }

  /** Record i's chunk µs (its count first), or null when they are kept as doubles. */
  microsOf(i: number): Float64Array {
    const r = this.records[i]!;
    if (this.isParsed(i)) return this.of(i).micros!;
    // A record on a step timeline (a virtual run's) reads its µs from the timeline's, rounded once per step.
    const stretch = stepStretchOf(r);
    if (stretch !== null) return this.stepMicros.of(stretch.timeline).subarray(stretch.first, stretch.first + stretch.count);
    const c = r.chunk_ms;
    if (c.length > this.micros.length) this.micros = new Float64Array(c.length * 2);
    for (let k = 0; k < c.length; k++) this.micros[k] = asRead(Math.round(c[k]! * 1000));
    return this.micros;
  }

  private isParsed(i: number): boolean {
    if (this.kind[i] === 0) this.kind[i] = plainLine(this.records[i]!) ? 2 : 1;
    return this.kind[i] === 1;
  }

  of(i: number): ReadBack {
    const r = this.records[i]!;
    if (this.isParsed(i)) {
      let b = this.parsed.get(i);
      if (b === undefined) {
        const rec = recordFromJsonLine(recordToJsonLine(fieldsOf(r)));
        b = { rec, micros: wholeMicros(rec.chunk_ms), count: rec.chunk_ms.length };
        this.parsed.set(i, b);
      }
      return b;
    }
    const micros = this.microsOf(i);
    const count = stepStretchOf(r)?.count ?? r.chunk_ms.length;
    const first = r.first_token_ms;
    // Every line field, in the line's order (the reader's record has them so: a record kept whole keeps that order).
    const rec: RequestRecord = {
      id: asRead(r.id),
      phase: r.phase,
      stage: asRead(r.stage),
      worker: asRead(r.worker),
      task: r.task,
      session: r.session,
      turn: r.turn === null ? null : asRead(r.turn),
      scheduled_ms: asRead(atRecordResolution(r.scheduled_ms)),
      sent_ms: asRead(atRecordResolution(r.sent_ms)),
      first_token_ms: first === null ? null : asRead(atRecordResolution(first)),
      chunk_ms: EMPTY,
      end_ms: asRead(atRecordResolution(r.end_ms)),
      prompt_tokens: r.prompt_tokens === null ? null : asRead(r.prompt_tokens),
      output_tokens: asRead(r.output_tokens),
      requested_output_tokens: r.requested_output_tokens === null ? null : asRead(r.requested_output_tokens),
      token_source: r.token_source,
      client_prompt_tokens: r.client_prompt_tokens === null ? null : asRead(r.client_prompt_tokens),
      status: r.status,
      error_class: r.error_class,
      http_status: r.http_status === null ? null : asRead(r.http_status),
      finish_reason: r.finish_reason,
      error_message: null,
      output_text: null,
    };
    return { rec, micros, count };
  }
}

/** The µs of parsed chunk times when the store keeps them as gaps (chunk-store.ts putTimes: each whole µs exactly), else null. */
function wholeMicros(c: Float64Array): Float64Array | null {
  const out = new Float64Array(c.length);
  for (let k = 0; k < c.length; k++) {
    out[k] = Math.round(c[k]! * 1000);
    if (!(Number.isSafeInteger(out[k]) && out[k]! / 1000 === c[k])) return null;
  }
  return out;
}
