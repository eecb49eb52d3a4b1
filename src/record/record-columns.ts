/**
 * Records read back from records.jsonl, held in typed columns instead of objects (issue 31). A
 * parsed record object costs ~350 bytes and its chunk_ms a boxed number per chunk while parsing,
 * then 8 bytes a chunk; here a record is ~60 bytes of columns and a chunk under 2 bytes:
 *
 *   numbers     Float64Array  scheduled_ms, sent_ms, first_token_ms (NaN: null), end_ms
 *               Int32Array    id, stage, worker, turn, prompt/output/requested/client tokens, http_status (−1: null)
 *   codes       Uint8Array    phase | status << 3 | token_source << 5 (dictionary-encoded enums),
 *                             | 0x80 when the chunk times never go back (what every run writes): a
 *                             pass that needs them in order (the check on read, counts up to a
 *                             time) then reads the first chunk or bisects instead of reading all
 *               Int8Array     error_class (index in ERROR_CLASSES, −1: null)
 *   strings     Int32Array    task, session, finish_reason: ids in one table of the run's distinct strings
 *   chunk times chunk-store.ts: 1–3 bytes a chunk (its gap in µs, coded against the latest few) when every
 *               time is whole µs (what records.jsonl writes), the doubles themselves otherwise;
 *               after shareChunkTimeline, a virtual run's records are (first step, count) on the
 *               step timeline they share, and say so as a StepStretch (record/step-stretch.ts).
 *
 * What the columns do not hold (error messages, texts, retry and reasoning fields, trace ids,
 * quality checks) is kept per record in a sparse side table, and a record whose numbers do not
 * fit the columns (a fractional or negative id or token count, one the Int32 columns cannot hold) is kept whole.
 *
 * `records()` gives read-only views with the RequestRecord shape whose fields read the columns,
 * so every figure, verdict and report is computed by the same code on the same values as from
 * parsed objects; passes over every chunk read them through `ChunkTimes` (no array per record).
 */
import { ChunkStore, filledColumn, microsToTimes, type ChunkPages, type SectionSource, type StoredSection } from './chunk-store.js';
import { Interned, NULL_INT, PagedColumn, type ColumnArray } from './paged-column.js';
import { ERROR_CLASSES, PHASES, type ErrorClass, type RequestRecord, type RequestStatus, type TokenSource } from './record.js';
import { STEP_STRETCH, type StepStretch } from './step-stretch.js';

/** Bit 7 of a record's code: its chunk times never go back (each ≥ the one before), known when it was stored. */
const SORTED = 0x80;
const STATUSES: readonly RequestStatus[] = ['ok', 'error', 'timeout', 'cancelled'];
const TOKEN_SOURCES: readonly TokenSource[] = ['usage', 'tokenizer', 'chunks', 'none'];

const fitsInt = (v: number | null): boolean => v === null || (Number.isInteger(v) && v >= 0 && v < 2 ** 31);

/** Fields beyond the columns, in recordFromJsonLine's key order; error_message and output_text only when not null. */
export const EXTRA_KEYS = [
  'error_message', 'output_text', 'first_reasoning_ms', 'first_answer_ms', 'reasoning_tokens', 'attempt', 'retried', 'retry_after_ms', 'node',
  'prompt_messages', 'inputs', 'images', 'image_bytes', 'audio_clips', 'audio_bytes', 'trace_id', 'response_id', 'quality', 'events_after_done', 'usage_rejected',
] as const satisfies ReadonlyArray<keyof RequestRecord>;

const COLUMNS: unique symbol = Symbol('infermeter.recordColumns');
const AT: unique symbol = Symbol('infermeter.recordColumnsIndex');

const U8 = (n: number) => new Uint8Array(n);
const I8 = (n: number) => new Int8Array(n);
const I32 = (n: number) => new Int32Array(n);
const F64 = (n: number) => new Float64Array(n);

/** The file beside records.jsonl that keeps a finished run's columns (store/records-columns-file.ts). */
export const COLUMNS_FILE = 'records.cols';

/** The version of what `stored()` gives: a column file of another layout is not read (bump it with any change of the columns or their coding). */
export const STORED_LAYOUT = 2;

/** A RecordColumns store for the column file (store/records-columns-file.ts): its typed sections and the rest. */
export interface StoredColumns {
  n: number;
  sections: StoredSection[];
  /** What is not typed (v8-serialisable): the string table, side fields and whole records by position, the chunk pages' lengths. */
  rest: { strings: readonly string[]; extra: [number, Partial<RequestRecord>][]; whole: [number, RequestRecord][]; pages: ChunkPages };
}

export class RecordColumns {
  private n = 0;
  private readonly id: PagedColumn<Int32Array>;
  private readonly scheduled: PagedColumn<Float64Array>;
  private readonly sent: PagedColumn<Float64Array>;
  private readonly firstToken: PagedColumn<Float64Array>;
  private readonly end: PagedColumn<Float64Array>;
  private readonly codes: PagedColumn<Uint8Array>;
  private readonly errorClass: PagedColumn<Int8Array>;
  private readonly stage: PagedColumn<Int32Array>;
  private readonly worker: PagedColumn<Int32Array>;
  private readonly turn: PagedColumn<Int32Array>;
  private readonly prompt: PagedColumn<Int32Array>;
  private readonly output: PagedColumn<Int32Array>;
  private readonly requested: PagedColumn<Int32Array>;
  private readonly clientPrompt: PagedColumn<Int32Array>;
  private readonly httpStatus: PagedColumn<Int32Array>;
  private readonly task: PagedColumn<Int32Array>;
  private readonly session: PagedColumn<Int32Array>;
  private readonly finish: PagedColumn<Int32Array>;
  private readonly chunkStore: ChunkStore;
  private readonly strings: Interned;
  /** Fields beyond the columns, by position, in the record's own key order. */
  private readonly extra: Map<number, Partial<RequestRecord>>;
  /** Records kept whole (numbers the columns cannot hold), by position. */
  private readonly whole: Map<number, RequestRecord>;
  /** Loaded from the column file: read-only (a column of one value shares one page among all its pages). */
  private readonly loaded: boolean;

  /**
   * An empty store, or (`stored`) the one the column file holds: its `rest` and the typed
   * sections `fill` reads. The store holds what it held when `stored()` wrote it, value for value.
   */
  constructor(stored?: { n: number; rest: StoredColumns['rest']; src: SectionSource }) {
    const col = <A extends ColumnArray>(make: (n: number) => A, name: string): PagedColumn<A> =>
      stored ? filledColumn(make, name, stored.n, stored.src) : new PagedColumn(make);
    this.id = col(I32, 'id');
    this.scheduled = col(F64, 'scheduled_ms');
    this.sent = col(F64, 'sent_ms');
    this.firstToken = col(F64, 'first_token_ms');
    this.end = col(F64, 'end_ms');
    this.codes = col(U8, 'codes');
    this.errorClass = col(I8, 'error_class');
    this.stage = col(I32, 'stage');
    this.worker = col(I32, 'worker');
    this.turn = col(I32, 'turn');
    this.prompt = col(I32, 'prompt_tokens');
    this.output = col(I32, 'output_tokens');
    this.requested = col(I32, 'requested_output_tokens');
    this.clientPrompt = col(I32, 'client_prompt_tokens');
    this.httpStatus = col(I32, 'http_status');
    this.task = col(I32, 'task');
    this.session = col(I32, 'session');
    this.finish = col(I32, 'finish_reason');
    this.chunkStore = stored ? new ChunkStore({ n: stored.n, pages: stored.rest.pages, src: stored.src }) : new ChunkStore();
    this.strings = stored ? Interned.of(stored.rest.strings) : new Interned();
    this.extra = new Map(stored?.rest.extra);
    this.whole = new Map(stored?.rest.whole);
    this.n = stored?.n ?? 0;
    this.loaded = stored !== undefined;
  }

  /** Everything the store holds, for the column file (the constructor's `stored` reads it back). */
  stored(): StoredColumns {
    const n = this.n;
    const named: [string, PagedColumn<ColumnArray>][] = [
      ['id', this.id], ['scheduled_ms', this.scheduled], ['sent_ms', this.sent], ['first_token_ms', this.firstToken], ['end_ms', this.end],
      ['codes', this.codes], ['error_class', this.errorClass], ['stage', this.stage], ['worker', this.worker], ['turn', this.turn],
      ['prompt_tokens', this.prompt], ['output_tokens', this.output], ['requested_output_tokens', this.requested],
      ['client_prompt_tokens', this.clientPrompt], ['http_status', this.httpStatus], ['task', this.task], ['session', this.session],
      ['finish_reason', this.finish],
    ];
    const chunks = this.chunkStore.stored(n);
    return {
      n,
      sections: [...named.map(([name, c]) => ({ name, parts: c.prefix(n), paged: true })), ...chunks.sections],
      rest: { strings: this.strings.all(), extra: [...this.extra], whole: [...this.whole], pages: chunks.pages },
    };
  }

  get length(): number {
    return this.n;
  }

  /**
   * Appends `r`. `micros`, when given, holds its chunk times as whole µs (the first `count`
   * values; r.chunk_ms is then ignored): the reader's scan of the line's digits.
   */
  add(r: RequestRecord, micros?: Float64Array, count = 0): void {
    this.append(r, micros, count, false);
  }

  /**
   * add(r, micros, count) for the record the byte scan fills (jsonl-line-scan.ts): its fields are
   * the line's keys alone, error_message and output_text null, so it has none beyond the columns.
   */
  addScanned(r: RequestRecord, micros: Float64Array, count: number): void {
    this.append(r, micros, count, true);
  }

  /**
   * add(r, micros, count) for a record a builder already found at steps first … first + count − 1
   * of the timeline it will give adoptChunkTimeline (store/written-columns.ts): it must be a record
   * the columns hold (fitsColumns) with µs stored as gaps, what shareChunkTimeline would look at.
   */
  addOnTimeline(r: RequestRecord, micros: Float64Array, count: number, first: number): void {
    this.append(r, micros, count, false, first);
  }

  /** The shared timeline (whole µs) of the records added by addOnTimeline, once all records are added. */
  adoptChunkTimeline(micros: Float64Array): void {
    this.chunkStore.adoptTimeline(this.n, (i) => !this.whole.has(i), micros);
  }

  private append(r: RequestRecord, micros: Float64Array | undefined, count: number, lineKeysOnly: boolean, onTimeline = -1): void {
    if (this.loaded) throw new Error('records loaded from their column file are read-only');
    const i = this.n++;
    if (!RecordColumns.fitsColumns(r)) {
      if (onTimeline >= 0) throw new Error('a record kept whole is not on a timeline');
      this.whole.set(i, micros ? { ...r, chunk_ms: microsToTimes(micros, count) } : r);
      return;
    }
    this.id.set(i, r.id);
    this.scheduled.set(i, r.scheduled_ms);
    this.sent.set(i, r.sent_ms);
    this.firstToken.set(i, r.first_token_ms ?? NaN);
    this.end.set(i, r.end_ms);
    this.codes.set(i, PHASES.indexOf(r.phase) | (STATUSES.indexOf(r.status) << 3) | (TOKEN_SOURCES.indexOf(r.token_source) << 5));
    this.errorClass.set(i, r.error_class === null ? NULL_INT : ERROR_CLASSES.indexOf(r.error_class));
    this.stage.set(i, r.stage);
    this.worker.set(i, r.worker);
    this.turn.set(i, r.turn ?? NULL_INT);
    this.prompt.set(i, r.prompt_tokens ?? NULL_INT);
    this.output.set(i, r.output_tokens);
    this.requested.set(i, r.requested_output_tokens ?? NULL_INT);
    this.clientPrompt.set(i, r.client_prompt_tokens ?? NULL_INT);
    this.httpStatus.set(i, r.http_status ?? NULL_INT);
    this.task.set(i, this.strings.id(r.task));
    this.session.set(i, this.strings.id(r.session));
    this.finish.set(i, this.strings.id(r.finish_reason));
    let sorted: boolean;
    if (onTimeline >= 0) {
      this.chunkStore.putStretch(i, count, onTimeline, micros![0]!, micros![count - 1]!);
      sorted = true;
    } else sorted = micros ? this.chunkStore.putMicros(i, micros, count) : this.chunkStore.putTimes(i, r.chunk_ms);
    if (sorted) this.codes.set(i, this.codes.get(i) | SORTED);
    if (lineKeysOnly) return;
    let more: Record<string, unknown> | null = null;
    for (const k of EXTRA_KEYS) {
      const v = r[k];
      if (v !== undefined && v !== null) (more ??= {})[k] = v;
      else if (v === null && k !== 'error_message' && k !== 'output_text') (more ??= {})[k] = null;
    }
    if (more) this.extra.set(i, more as Partial<RequestRecord>);
  }

  /**
   * Keeps the records that are stretches of one shared step timeline as such (chunk-store.ts
   * shareTimeline): called once the records are all added, before the views are used. Returns
   * how many records became stretches.
   */
  shareChunkTimeline(): number {
    if (this.loaded) return 0;
    return this.chunkStore.shareTimeline(this.n, (i) => !this.whole.has(i));
  }

  /** View of the i-th record (in the order added). */
  view(i: number): RequestRecord {
    return this.whole.get(i) ?? new ColumnRecord(this, i);
  }

  /** Views of every record, in the order added. */
  records(): RequestRecord[] {
    const out = new Array<RequestRecord>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.view(i);
    return out;
  }

  /** Whether the columns hold r (else it is kept whole): every number of a column fits it. */
  static fitsColumns(r: RequestRecord): boolean {
    return (
      fitsInt(r.id) && !Object.is(r.id, -0) && fitsInt(r.stage) && fitsInt(r.worker) && fitsInt(r.turn) && fitsInt(r.prompt_tokens) && fitsInt(r.output_tokens) && fitsInt(r.requested_output_tokens) &&
      fitsInt(r.client_prompt_tokens) && fitsInt(r.http_status) && !Number.isNaN(r.first_token_ms) && PHASES.includes(r.phase) && STATUSES.includes(r.status) &&
      TOKEN_SOURCES.includes(r.token_source)
    );
  }

  /**
   * @internal column reads for ColumnRecord: one method per column (a getter per field of every
   * record is on the hot path of every pass; a keyed `this[col]` read is not folded into each).
   */
  idAt(i: number): number {
    return this.id.get(i);
  }
  scheduledAt(i: number): number {
    return this.scheduled.get(i);
  }
  sentAt(i: number): number {
    return this.sent.get(i);
  }
  endAt(i: number): number {
    return this.end.get(i);
  }
  time(i: number): number | null {
    const v = this.firstToken.get(i);
    return Number.isNaN(v) ? null : v;
  }
  stageAt(i: number): number {
    return this.stage.get(i);
  }
  workerAt(i: number): number {
    return this.worker.get(i);
  }
  outputAt(i: number): number {
    return this.output.get(i);
  }
  nullableInt(col: 'turn' | 'prompt' | 'clientPrompt' | 'requested' | 'httpStatus', i: number): number | null {
    const v = this[col].get(i);
    return v === NULL_INT ? null : v;
  }
  promptAt(i: number): number | null {
    const v = this.prompt.get(i);
    return v === NULL_INT ? null : v;
  }
  clientPromptAt(i: number): number | null {
    const v = this.clientPrompt.get(i);
    return v === NULL_INT ? null : v;
  }
  requestedAt(i: number): number | null {
    const v = this.requested.get(i);
    return v === NULL_INT ? null : v;
  }
  str(col: 'task' | 'session' | 'finish', i: number): string | null {
    return this.strings.value(this[col].get(i));
  }
  code(i: number): number {
    return this.codes.get(i);
  }
  errorClassOf(i: number): ErrorClass | null {
    const k = this.errorClass.get(i);
    return k === NULL_INT ? null : ERROR_CLASSES[k]!;
  }
  more(i: number): Partial<RequestRecord> | undefined {
    return this.extra.get(i);
  }
  chunks(i: number): number {
    return this.chunkStore.countOf(i);
  }
  stretchAt(i: number): StepStretch | null {
    return this.chunkStore.stretch(i);
  }
  /** Whether the i-th record's chunk times are known never to go back (then firstChunk and countAtMost answer). */
  chunksSorted(i: number): boolean {
    return (this.codes.get(i) & SORTED) !== 0;
  }
  /** The i-th record's first chunk time (it has at least one). */
  firstChunk(i: number): number {
    return this.chunkStore.first(i);
  }
  /** How many of the i-th record's chunk times are ≤ t, for a record whose chunks are sorted. */
  countAtMost(i: number, t: number): number {
    return this.chunkStore.countAtMost(i, t);
  }
  /**
   * The gaps between the i-th record's consecutive chunk times, written into `out` from `at`
   * (room for count − 1): each the difference of the two doubles chunkTimes gives, without
   * writing the times first (ITL's passes visit every gap of a run twice). Returns how many.
   */
  chunkGaps(i: number, out: Float64Array, at: number): number {
    return this.chunkStore.gaps(i, out, at);
  }
  /** The i-th record's chunk times, a fresh array. */
  chunkTimesCopy(i: number): Float64Array {
    const out = new Float64Array(this.chunkStore.countOf(i));
    const v = this.chunkStore.times(i, out);
    if (v.buffer !== out.buffer) out.set(v);
    return out;
  }
  /** The i-th record's chunk times: into `out` (≥ its count) or a view of stored doubles. */
  chunkTimes(i: number, out: Float64Array): Float64Array {
    return this.chunkStore.times(i, out);
  }
}

/** One record of a RecordColumns store, read-only; fields beyond the columns come from its side entry. */
class ColumnRecord implements RequestRecord {
  readonly [COLUMNS]: RecordColumns;
  readonly [AT]: number;
  constructor(s: RecordColumns, i: number) {
    this[COLUMNS] = s;
    this[AT] = i;
  }
  private get s(): RecordColumns {
    return this[COLUMNS];
  }
  private get i(): number {
    return this[AT];
  }
  get id() { return this.s.idAt(this.i); }
  get phase() { return PHASES[this.s.code(this.i) & 7]!; }
  /** Its chunks as a stretch of the step timeline records share (record/step-stretch.ts), or null. */
  get [STEP_STRETCH]() { return this.s.stretchAt(this.i); }
  get stage() { return this.s.stageAt(this.i); }
  get worker() { return this.s.workerAt(this.i); }
  get task() { return this.s.str('task', this.i); }
  get session() { return this.s.str('session', this.i); }
  get turn() { return this.s.nullableInt('turn', this.i); }
  get scheduled_ms() { return this.s.scheduledAt(this.i); }
  get sent_ms() { return this.s.sentAt(this.i); }
  get first_token_ms() { return this.s.time(this.i); }
  get chunk_ms() { return this.s.chunkTimesCopy(this.i); }
  get end_ms() { return this.s.endAt(this.i); }
  get prompt_tokens() { return this.s.promptAt(this.i); }
  get output_tokens() { return this.s.outputAt(this.i); }
  get requested_output_tokens() { return this.s.requestedAt(this.i); }
  get token_source() { return TOKEN_SOURCES[(this.s.code(this.i) >> 5) & 3]!; }
  get client_prompt_tokens() { return this.s.clientPromptAt(this.i); }
  get status() { return STATUSES[(this.s.code(this.i) >> 3) & 3]!; }
  get error_class() { return this.s.errorClassOf(this.i); }
  get http_status() { return this.s.nullableInt('httpStatus', this.i); }
  get finish_reason() { return this.s.str('finish', this.i); }
  get error_message() { return this.s.more(this.i)?.error_message ?? null; }
  get output_text() { return this.s.more(this.i)?.output_text ?? null; }
  get first_reasoning_ms() { return this.s.more(this.i)?.first_reasoning_ms; }
  get first_answer_ms() { return this.s.more(this.i)?.first_answer_ms; }
  get reasoning_tokens() { return this.s.more(this.i)?.reasoning_tokens; }
  get attempt() { return this.s.more(this.i)?.attempt; }
  get retried() { return this.s.more(this.i)?.retried; }
  get retry_after_ms() { return this.s.more(this.i)?.retry_after_ms; }
  get node() { return this.s.more(this.i)?.node; }
  get prompt_messages() { return this.s.more(this.i)?.prompt_messages; }
  get inputs() { return this.s.more(this.i)?.inputs; }
  get images() { return this.s.more(this.i)?.images; }
  get image_bytes() { return this.s.more(this.i)?.image_bytes; }
  get audio_clips() { return this.s.more(this.i)?.audio_clips; }
  get audio_bytes() { return this.s.more(this.i)?.audio_bytes; }
  get events_after_done() { return this.s.more(this.i)?.events_after_done; }
  get usage_rejected() { return this.s.more(this.i)?.usage_rejected; }
  get trace_id() { return this.s.more(this.i)?.trace_id; }
  get response_id() { return this.s.more(this.i)?.response_id; }
  get quality() { return this.s.more(this.i)?.quality; }

  /** A plain object with the fields of the parsed record, in its key order (records.jsonl's line order). */
  plain(): RequestRecord {
    const more = this.s.more(this.i);
    return {
      id: this.id, phase: this.phase, stage: this.stage, worker: this.worker, task: this.task, session: this.session, turn: this.turn,
      scheduled_ms: this.scheduled_ms, sent_ms: this.sent_ms, first_token_ms: this.first_token_ms, chunk_ms: this.chunk_ms, end_ms: this.end_ms,
      prompt_tokens: this.prompt_tokens, output_tokens: this.output_tokens, requested_output_tokens: this.requested_output_tokens,
      token_source: this.token_source, client_prompt_tokens: this.client_prompt_tokens, status: this.status, error_class: this.error_class,
      http_status: this.http_status, finish_reason: this.finish_reason, error_message: null, output_text: null,
      ...more,
    };
  }
}

/** A record as a plain object (a column view copied out; any other record as it is), e.g. to spread it. */
export function plainRecord(r: RequestRecord): RequestRecord {
  return r instanceof ColumnRecord ? r.plain() : r;
}

/** How many chunk times `r` has, without building its chunk_ms. */
export function chunkCount(r: RequestRecord): number {
  return r instanceof ColumnRecord ? r[COLUMNS].chunks(r[AT]) : r.chunk_ms.length;
}

/**
 * The gaps between r's consecutive chunk times (chunk_ms[k] − chunk_ms[k − 1], k ≥ 1) written into
 * `out` from `at`, which has room for them; returns how many. A column view's are read from its
 * columns without building its chunk_ms.
 */
export function chunkGapsInto(r: RequestRecord, out: Float64Array, at: number): number {
  if (r instanceof ColumnRecord) return r[COLUMNS].chunkGaps(r[AT], out, at);
  const c = r.chunk_ms;
  for (let k = 1; k < c.length; k++) out[at + k - 1] = c[k]! - c[k - 1]!;
  return Math.max(0, c.length - 1);
}

/**
 * How many of r's chunk times are ≤ t: the count a loop over chunk_ms gives, without reading
 * every chunk of a column view whose chunks are sorted.
 */
export function chunksAtMost(r: RequestRecord, t: number, times: ChunkTimes): number {
  if (r instanceof ColumnRecord && r[COLUMNS].chunksSorted(r[AT])) return r[COLUMNS].countAtMost(r[AT], t);
  const c = times.of(r);
  let inside = 0;
  for (let i = 0; i < c.length; i++) if (c[i]! <= t) inside++;
  return inside;
}

/**
 * For a column view whose chunk times are known never to go back: its first chunk time, or null
 * when it has none. Undefined for any other record (the caller reads its chunks).
 */
export function sortedChunksStart(r: RequestRecord): number | null | undefined {
  if (!(r instanceof ColumnRecord)) return undefined;
  const s = r[COLUMNS];
  const i = r[AT];
  if (!s.chunksSorted(i)) return undefined;
  return s.chunks(i) === 0 ? null : s.firstChunk(i);
}

/**
 * Reads records' chunk times into one reused buffer: for a column view no array per record is
 * built. The array `of` returns is valid until the next call.
 */
export class ChunkTimes {
  private buf = new Float64Array(256);
  of(r: RequestRecord): Float64Array {
    if (!(r instanceof ColumnRecord)) return r.chunk_ms;
    const s = r[COLUMNS];
    const i = r[AT];
    const n = s.chunks(i);
    if (n > this.buf.length) this.buf = new Float64Array(n * 2);
    return s.chunkTimes(i, this.buf);
  }
}
