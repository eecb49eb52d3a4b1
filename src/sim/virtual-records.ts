/**
 * The records of a long virtual-time run, held in columns instead of objects. A record object
 * costs a few hundred bytes and its chunk_ms eight bytes a token: a day at 20 req/s is 1.7 M
 * records and ~200 M tokens, several GB. Here a record is ~100 bytes of typed columns, and its
 * chunk_ms is a stretch of the run's step timeline (step-timeline.ts) — (first step, count) —
 * since a decoding sequence gets a token at every step. Records that do not fit the columns
 * exactly (failures, text, retries, quality checks, a node or message count, chunks that are
 * not one stretch: a preempted sequence) are kept as they are.
 *
 * `records()` gives read-only views with the RequestRecord shape whose fields read the columns,
 * so every figure, verdict and report is computed by the same code, on the same values, as from
 * plain records (chunk_ms is rebuilt from the timeline when read).
 */
import { PHASES, type RequestRecord, type TokenSource } from '../record/record.js';
import { f64Column, i32Column, Interned, NULL_INT } from '../record/paged-column.js';
import { STEP_STRETCH, type StepStretch } from '../record/step-stretch.js';
import type { StepTimeline } from './step-timeline.js';

const f64 = f64Column;
const i32 = i32Column;

const TOKEN_SOURCES: readonly TokenSource[] = ['usage', 'tokenizer', 'chunks', 'none'];
const isInt = (v: number | null): boolean => v === null || (Number.isInteger(v) && v >= 0 && v < 2 ** 31);

export class VirtualRecords {
  private n = 0;
  private readonly id = f64();
  private readonly scheduled = f64();
  private readonly sent = f64();
  private readonly firstToken = f64();
  private readonly end = f64();
  private readonly firstReasoning = f64();
  private readonly firstAnswer = f64();
  /** Bits 0–3 phase, 4–5 token source, 6 has reasoning fields. */
  private readonly codes = i32();
  private readonly stage = i32();
  private readonly worker = i32();
  private readonly turn = i32();
  private readonly task = i32();
  private readonly session = i32();
  private readonly finish = i32();
  private readonly prompt = i32();
  private readonly clientPrompt = i32();
  private readonly output = i32();
  private readonly requested = i32();
  private readonly reasoningTokens = i32();
  private readonly firstStep = i32();
  private readonly chunkCount = i32();
  private readonly strings = new Interned();
  /** Records kept as they came (see the header), by position. */
  private readonly plain = new Map<number, RequestRecord>();

  constructor(readonly timeline: StepTimeline) {}

  get length(): number {
    return this.n;
  }

  /** Records kept as objects (failures, preempted sequences, …): the store's exceptions. */
  get plainCount(): number {
    return this.plain.size;
  }

  /** Keeps `r`; returns the first step of its chunks' stretch (−1: no chunks), or null when kept whole. */
  add(r: RequestRecord): number | null {
    const i = this.n++;
    const first = this.stretchOf(r.chunk_ms);
    if (first === null || !this.fitsColumns(r)) {
      this.plain.set(i, r);
      return null;
    }
    this.id.set(i, r.id);
    this.scheduled.set(i, r.scheduled_ms);
    this.sent.set(i, r.sent_ms);
    this.firstToken.set(i, r.first_token_ms ?? NaN);
    this.end.set(i, r.end_ms);
    const reasoning = r.reasoning_tokens !== undefined;
    this.codes.set(i, PHASES.indexOf(r.phase) | (TOKEN_SOURCES.indexOf(r.token_source) << 4) | (reasoning ? 64 : 0));
    if (reasoning) {
      this.firstReasoning.set(i, r.first_reasoning_ms ?? NaN);
      this.firstAnswer.set(i, r.first_answer_ms ?? NaN);
      this.reasoningTokens.set(i, r.reasoning_tokens!);
    }
    this.stage.set(i, r.stage);
    this.worker.set(i, r.worker);
    this.turn.set(i, r.turn ?? NULL_INT);
    this.task.set(i, this.strings.id(r.task));
    this.session.set(i, this.strings.id(r.session));
    this.finish.set(i, this.strings.id(r.finish_reason));
    this.prompt.set(i, r.prompt_tokens ?? NULL_INT);
    this.clientPrompt.set(i, r.client_prompt_tokens ?? NULL_INT);
    this.output.set(i, r.output_tokens);
    this.requested.set(i, r.requested_output_tokens ?? NULL_INT);
    this.firstStep.set(i, first);
    this.chunkCount.set(i, r.chunk_ms.length);
    return first;
  }

  /** Views of every record, in the order added. */
  records(): RequestRecord[] {
    const out = new Array<RequestRecord>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.plain.get(i) ?? new RecordView(this, i);
    return out;
  }

  /** The first step of chunks that are one stretch of the timeline (−1: no chunks), else null. */
  private stretchOf(c: Float64Array): number | null {
    if (c.length === 0) return NULL_INT;
    const t = this.timeline;
    const first = t.indexOf(c[0]!);
    if (first < 0 || first + c.length > t.length) return null;
    for (let k = 1; k < c.length; k++) if (t.at(first + k) !== c[k]) return null;
    return first;
  }

  /** Whether the columns hold the record exactly: an ok answer with no text, retry or check. */
  private fitsColumns(r: RequestRecord): boolean {
    if (r.status !== 'ok' || r.error_class !== null || r.http_status !== null || r.error_message !== null || r.output_text !== null) return false;
    if (r.attempt !== undefined || r.retried !== undefined || r.retry_after_ms !== undefined || r.quality !== undefined || r.node !== undefined || r.prompt_messages !== undefined || r.inputs !== undefined || r.images !== undefined || r.audio_clips !== undefined) return false;
    if ((r.reasoning_tokens === undefined) !== (r.first_reasoning_ms === undefined && r.first_answer_ms === undefined)) return false;
    if (r.reasoning_tokens !== undefined && (r.first_reasoning_ms === undefined || r.first_answer_ms === undefined || !isInt(r.reasoning_tokens))) return false;
    if (r.turn !== null && !isInt(r.turn)) return false;
    return isInt(r.stage) && isInt(r.worker) && isInt(r.prompt_tokens) && isInt(r.client_prompt_tokens) && isInt(r.output_tokens) && isInt(r.requested_output_tokens) && !Number.isNaN(r.first_token_ms);
  }

  /** @internal column reads for RecordView */
  f(col: 'id' | 'scheduled' | 'sent' | 'end', i: number): number {
    return this[col].get(i);
  }
  nullableTime(col: 'firstToken' | 'firstReasoning' | 'firstAnswer', i: number): number | null {
    const v = this[col].get(i);
    return Number.isNaN(v) ? null : v;
  }
  int(col: 'stage' | 'worker' | 'output', i: number): number {
    return this[col].get(i);
  }
  nullableInt(col: 'turn' | 'prompt' | 'clientPrompt' | 'requested' | 'reasoningTokens', i: number): number | null {
    const v = this[col].get(i);
    return v === NULL_INT ? null : v;
  }
  str(col: 'task' | 'session' | 'finish', i: number): string | null {
    return this.strings.value(this[col].get(i));
  }
  code(i: number): number {
    return this.codes.get(i);
  }
  chunks(i: number): Float64Array {
    const first = this.firstStep.get(i);
    return first === NULL_INT ? new Float64Array(0) : this.timeline.slice(first, this.chunkCount.get(i));
  }
  stretch(i: number): StepStretch | null {
    const first = this.firstStep.get(i);
    return first === NULL_INT ? null : { timeline: this.timeline, first, count: this.chunkCount.get(i) };
  }
}

/** One record of a VirtualRecords store, read-only. */
class RecordView implements RequestRecord {
  constructor(
    private readonly s: VirtualRecords,
    private readonly i: number,
  ) {}
  get id() { return this.s.f('id', this.i); }
  get phase() { return PHASES[this.s.code(this.i) & 15]!; }
  get stage() { return this.s.int('stage', this.i); }
  get worker() { return this.s.int('worker', this.i); }
  get task() { return this.s.str('task', this.i); }
  get session() { return this.s.str('session', this.i); }
  get turn() { return this.s.nullableInt('turn', this.i); }
  get scheduled_ms() { return this.s.f('scheduled', this.i); }
  get sent_ms() { return this.s.f('sent', this.i); }
  get first_token_ms() { return this.s.nullableTime('firstToken', this.i); }
  get chunk_ms() { return this.s.chunks(this.i); }
  /** Its chunks as a stretch of the run's step timeline (record/step-stretch.ts). */
  get [STEP_STRETCH]() { return this.s.stretch(this.i); }
  get end_ms() { return this.s.f('end', this.i); }
  get prompt_tokens() { return this.s.nullableInt('prompt', this.i); }
  get output_tokens() { return this.s.int('output', this.i); }
  get requested_output_tokens() { return this.s.nullableInt('requested', this.i); }
  get token_source() { return TOKEN_SOURCES[(this.s.code(this.i) >> 4) & 3]!; }
  get client_prompt_tokens() { return this.s.nullableInt('clientPrompt', this.i); }
  get status() { return 'ok' as const; }
  get error_class() { return null; }
  get http_status() { return null; }
  get finish_reason() { return this.s.str('finish', this.i); }
  get error_message() { return null; }
  get output_text() { return null; }
  get first_reasoning_ms() { return this.hasReasoning ? this.s.nullableTime('firstReasoning', this.i) : undefined; }
  get first_answer_ms() { return this.hasReasoning ? this.s.nullableTime('firstAnswer', this.i) : undefined; }
  get reasoning_tokens() { return this.hasReasoning ? (this.s.nullableInt('reasoningTokens', this.i) as number) : undefined; }
  private get hasReasoning(): boolean {
    return (this.s.code(this.i) & 64) !== 0;
  }
}
