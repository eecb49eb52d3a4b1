/**
 * Saved records checked as they are read back (issue 24): what no run writes is refused with one
 * line naming the file and line, what can be repaired without guessing is repaired with a
 * warning. Refused: a negative time, times out of order within a record (an end before its send,
 * a first token outside [sent, end], chunk times going back), and two different records with the
 * same (stage, id, attempt) — records of another run mixed in. Repaired: the same record written
 * twice (identical lines): later copies are dropped and counted.
 */
import { recordToJsonLine } from '../record/jsonl.js';
import type { RequestRecord } from '../record/record.js';
import { ChunkTimes, sortedChunksStart } from '../record/record-columns.js';

const chunkTimes = new ChunkTimes();
import { UserError } from '../errors/user-error.js';

/** The first problem with one record's times, or null. */
export function timesProblem(r: RequestRecord): string | null {
  // Each field read once (a column view's getters read its columns): this runs for every record read.
  const scheduled = r.scheduled_ms;
  const sent = r.sent_ms;
  const end = r.end_ms;
  const first = r.first_token_ms;
  if (scheduled < 0) return negative('scheduled_ms', scheduled);
  if (sent < 0) return negative('sent_ms', sent);
  if (end < 0) return negative('end_ms', end);
  if (first !== null && first < 0) return negative('first_token_ms', first);
  if (end < sent) return `end_ms (${end}) is before sent_ms (${sent})`;
  if (first !== null && (first < sent || first > end)) {
    return `first_token_ms (${first}) is outside sent_ms … end_ms (${sent} … ${end})`;
  }
  // Chunks stored in order (every run's): only the first needs reading.
  const start = sortedChunksStart(r);
  if (start !== undefined) return start !== null && start < sent ? `chunk_ms[0] (${start}) is before sent_ms (${sent})` : null;
  const c = chunkTimes.of(r);
  if (c.length > 0 && c[0]! < sent) return `chunk_ms[0] (${c[0]}) is before sent_ms (${sent})`;
  for (let j = 1; j < c.length; j++) if (c[j]! < c[j - 1]!) return `chunk_ms goes back in time at index ${j} (${c[j - 1]} then ${c[j]})`;
  return null;
}

const negative = (field: string, v: number): string => `${field} is negative (${v}); times are ms since the run's start`;

/** (stage, id, attempt) as one exact double while each fits its bits (stage < 2^13, id < 2^32, attempt < 2^8); NaN otherwise. */
function numericKey(r: RequestRecord): number {
  const attempt = r.attempt ?? 0;
  if (!(r.stage >= 0 && r.stage < 2 ** 13 && r.id >= 0 && r.id < 2 ** 32 && attempt >= 0 && attempt < 2 ** 8)) return Number.NaN;
  if (!Number.isInteger(r.stage) || !Number.isInteger(r.id) || !Number.isInteger(attempt)) return Number.NaN;
  return r.stage * 2 ** 40 + r.id * 2 ** 8 + attempt;
}

const describeKey = (r: RequestRecord) => `stage ${r.stage}, id ${r.id}${r.attempt != null ? `, attempt ${r.attempt}` : ''}`;

/** Collects the records of one file with their line numbers; `finish` gives them checked. */
export class RecordsChecker {
  private keys = new Float64Array(1024);
  private lines = new Int32Array(1024);
  private n = 0;
  private anyNaN = false;

  constructor(private readonly path: string) {}

  /** The line number of the i-th record given to add. */
  lineOf(i: number): number {
    return this.lines[i]!;
  }

  /** One record as read; throws a UserError naming the line if its times are impossible. */
  add(r: RequestRecord, lineNo: number): void {
    const problem = timesProblem(r);
    if (problem) throw new UserError(`${this.path}:${lineNo}: ${problem}: the record is corrupt (infermeter never writes it so)`);
    if (this.n === this.keys.length) {
      const k = new Float64Array(this.n * 2);
      k.set(this.keys);
      this.keys = k;
      const l = new Int32Array(this.n * 2);
      l.set(this.lines);
      this.lines = l;
    }
    const key = numericKey(r);
    if (Number.isNaN(key)) this.anyNaN = true;
    this.keys[this.n] = key;
    this.lines[this.n++] = lineNo;
  }

  /**
   * The records without repeated copies, and a warning line per repair. Throws a UserError when
   * two different records share (stage, id, attempt). `records` are those given to add, in order.
   */
  finish(records: RequestRecord[]): { records: RequestRecord[]; warnings: string[] } {
    const repeats = this.repeats((i) => records[i]!);
    if (repeats === null) return { records, warnings: [] };
    return { records: records.filter((_, i) => repeats.drop[i] === 0), warnings: repeats.warnings };
  }

  /**
   * finish without the records held: `recordAt(i)` gives the i-th record given to add (asked for
   * only when there are repeats). Null when nothing repeats; else which records to drop (1) and
   * the warning line. Throws as finish.
   */
  repeats(recordAt: (i: number) => RequestRecord): { drop: Uint8Array; warnings: string[] } | null {
    if (!this.anyNaN && !hasRepeat(this.keys.subarray(0, this.n))) return null;
    const first = new Map<number | string, number>();
    const drop = new Uint8Array(this.n);
    let dropped = 0;
    let firstDropLine = 0;
    for (let i = 0; i < this.n; i++) {
      let r: RequestRecord | null = null;
      const key = Number.isNaN(this.keys[i]!) ? ((r = recordAt(i)), `${r.stage}:${r.id}:${r.attempt ?? 0}`) : this.keys[i]!;
      const at = first.get(key);
      if (at === undefined) {
        first.set(key, i);
        continue;
      }
      r ??= recordAt(i);
      if (recordToJsonLine(recordAt(at)) !== recordToJsonLine(r)) {
        throw new UserError(
          `${this.path}:${this.lines[i]}: a second, different record for ${describeKey(r)} (first at line ${this.lines[at]}): records of another run mixed in? Refused rather than counted twice`,
        );
      }
      drop[i] = 1;
      if (dropped++ === 0) firstDropLine = this.lines[i]!;
    }
    return { drop, warnings: [`warning: ${this.path}: ${dropped} record${dropped === 1 ? '' : 's'} written twice (identical lines, the first repeat at line ${firstDropLine}); each counted once`] };
  }
}

/** Whether a value repeats (sorted copy, neighbours compared). */
function hasRepeat(keys: Float64Array): boolean {
  // Keys that only go up (a run read back: id order, one attempt each) repeat none: no sorted
  // copy of a key per record, left to the collector after the read. (NaN keys never get here.)
  let rising = true;
  for (let i = 1; i < keys.length && rising; i++) rising = keys[i]! > keys[i - 1]!;
  if (rising) return false;
  const s = Float64Array.from(keys).sort();
  for (let i = 1; i < s.length; i++) if (s[i] === s[i - 1]) return true;
  return false;
}
