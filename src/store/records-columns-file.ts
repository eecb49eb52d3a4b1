/**
 * records.cols: the typed columns a read of records.jsonl built (record/record-columns.ts), kept
 * beside it so the next read of a finished run loads them instead of parsing the text again
 * (issue 31: the parse is most of analyze's, report's and compare's CPU). A derived file, never
 * the record of truth: records.jsonl stays the contract, and records.cols is used only while the
 * records.jsonl it was made from is there unchanged; delete it at will, the next read remakes it.
 *
 * Layout (docs/records.md, "The column file"), all little-endian:
 *   8 bytes   "IMCOLS\n\0"
 *   u32       header length H;  u32 0
 *   H bytes   header JSON (format, the source's identity, n, sections), then zeros to a multiple of 8
 *   rest      v8.serialize of what is not typed (strings, side fields, whole records), zeros to 8
 *   sections  each section's values in header order, each padded with zeros to a multiple of 8
 *
 * Invariants:
 * - A file is loaded only when its format, layout and the source's identity (size, mtime and
 *   ctime in ns, inode, a SHA-1 of its first and last 64 KiB) all match records.jsonl now, and
 *   every section has the name, element size and count the store asks for. Anything else, or any
 *   read error, is "no file": the caller parses the text, exactly as if it had never existed.
 * - The store read back holds the same values as the one written (typed arrays byte for byte,
 *   the rest through V8's serializer, which keeps −0, typed arrays and key order), and the records
 *   are checked again on load (records-check.ts) with their line numbers, so the warnings and
 *   refusals are those of the text read.
 * - Written only for a finished run (result.json beside records.jsonl) whose records.jsonl did
 *   not change while it was read and has no truncated tail; written to a temporary name and
 *   renamed, so a reader never sees half a file; a write that fails (read-only folder, full
 *   disk) leaves nothing and is not an error.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync, type BigIntStats } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { COLUMNS_FILE, RecordColumns, STORED_LAYOUT, type StoredColumns } from '../record/record-columns.js';
import type { ColumnArray } from '../record/paged-column.js';

export { COLUMNS_FILE };
const FORMAT = 'infermeter.columns/1';
const MAGIC = Buffer.from('IMCOLS\n\0', 'latin1');
/** Bytes hashed at each end of records.jsonl for its identity. */
const SAMPLE = 64 * 1024;
/** Largest read or write in one call (Linux moves at most ~2 GiB per call). */
const IO_MAX = 1 << 30;
/** `INFERMETER_COLUMN_FILE=off` reads and writes no column file (the text is parsed every time). */
const disabled = (): boolean => process.env.INFERMETER_COLUMN_FILE === 'off';

interface Header {
  format: string;
  layout: number;
  source: { size: string; mtime_ns: string; ctime_ns: string; ino: string; sample_sha1: string };
  n: number;
  truncated_tail: boolean;
  /** Line number of each record when they are not 1, 2, 3, … (blank lines between): a section "lines". */
  sparse_lines: boolean;
  rest_bytes: number;
  /** A section of integers whose values are all `constant` has no bytes in the file. */
  sections: { name: string; bytes_per_value: number; count: number; constant?: number }[];
}

/** What a read of records.jsonl gives, as the column file keeps it. */
export interface ColumnsRead {
  columns: RecordColumns;
  /** Line number of the i-th record. */
  lineOf: (i: number) => number;
  truncatedTail: boolean;
}

const pad8 = (n: number): number => (n + 7) & ~7;
const endianOk = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The column file of a records.jsonl path, or null when none is kept for it. */
function columnsPath(recordsPath: string): string | null {
  if (disabled() || !endianOk || basename(recordsPath) !== 'records.jsonl') return null;
  return join(dirname(recordsPath), COLUMNS_FILE);
}

/** Whether a column file is kept for this records.jsonl path at all (not when turned off, or for another file name). */
export function keepsColumnsFile(recordsPath: string): boolean {
  return columnsPath(recordsPath) !== null;
}

/** records.jsonl's identity as the header keeps it; null when it cannot be read. */
export function sourceIdentity(recordsPath: string): Header['source'] | null {
  let fd: number;
  try {
    fd = openSync(recordsPath, 'r');
  } catch {
    return null;
  }
  try {
    const st: BigIntStats = fstatSync(fd, { bigint: true });
    const size = Number(st.size);
    const hash = createHash('sha1');
    const head = Buffer.allocUnsafe(Math.min(SAMPLE, size));
    readFully(fd, head, 0);
    hash.update(head);
    if (size > SAMPLE) {
      const tail = Buffer.allocUnsafe(Math.min(SAMPLE, size - SAMPLE));
      readFully(fd, tail, size - tail.length);
      hash.update(tail);
    }
    return { size: String(st.size), mtime_ns: String(st.mtimeNs), ctime_ns: String(st.ctimeNs), ino: String(st.ino), sample_sha1: hash.digest('hex') };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

const sameSource = (a: Header['source'], b: Header['source']): boolean =>
  a.size === b.size && a.mtime_ns === b.mtime_ns && a.ctime_ns === b.ctime_ns && a.ino === b.ino && a.sample_sha1 === b.sample_sha1;

function readFully(fd: number, into: ArrayBufferView, position: number): void {
  const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
  let done = 0;
  while (done < bytes.length) {
    const got = readSync(fd, bytes, done, Math.min(IO_MAX, bytes.length - done), position + done);
    if (got === 0) throw new Error('column file: short read');
    done += got;
  }
}

function writeFully(fd: number, from: ArrayBufferView): void {
  const bytes = new Uint8Array(from.buffer, from.byteOffset, from.byteLength);
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, Math.min(IO_MAX, bytes.length - done));
}

/** The one value of integer parts that hold nothing else, else undefined (doubles are never kept so: NaN and −0 have no one JSON value). */
function constantOf(parts: readonly ColumnArray[]): number | undefined {
  if (parts.length === 0 || parts[0] instanceof Float64Array || parts[0]!.length === 0) return undefined;
  const v = parts[0]![0]!;
  for (const p of parts) for (let i = 0; i < p.length; i++) if (p[i] !== v) return undefined;
  return v;
}

/**
 * The records of `recordsPath` from its column file, or null when there is none that matches it
 * now (see the invariants): the caller reads the text.
 */
export function loadColumnsFile(recordsPath: string): ColumnsRead | null {
  const path = columnsPath(recordsPath);
  if (path === null || !existsSync(path)) return null;
  const source = sourceIdentity(recordsPath);
  if (source === null) return null;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const fileBytes = fstatSync(fd).size;
    const fixed = Buffer.alloc(16);
    readFully(fd, fixed, 0);
    if (!fixed.subarray(0, 8).equals(MAGIC)) return null;
    const headerBytes = fixed.readUInt32LE(8);
    if (16 + headerBytes > fileBytes) return null;
    const headerText = Buffer.allocUnsafe(headerBytes);
    readFully(fd, headerText, 16);
    const header = JSON.parse(headerText.toString('utf8')) as Header;
    if (header.format !== FORMAT || header.layout !== STORED_LAYOUT || !sameSource(header.source, source)) return null;
    let at = pad8(16 + headerBytes);
    const restBytes = Buffer.allocUnsafe(header.rest_bytes);
    readFully(fd, restBytes, at);
    at = pad8(at + header.rest_bytes);
    const offsets = new Map<string, { at: number; bytesPerValue: number; count: number; constant: number | undefined }>();
    for (const s of header.sections) {
      offsets.set(s.name, { at, bytesPerValue: s.bytes_per_value, count: s.count, constant: s.constant });
      if (s.constant === undefined) at = pad8(at + s.bytes_per_value * s.count);
    }
    if (at !== fileBytes) return null;
    const section = (name: string, count: number, bytesPerValue: number) => {
      const s = offsets.get(name);
      if (!s || s.count !== count || (count > 0 && s.bytesPerValue !== bytesPerValue)) throw new Error(`column file: section ${name} does not fit`);
      return s;
    };
    const src = {
      fill(name: string, into: ColumnArray, count: number): void {
        const s = section(name, count, into.BYTES_PER_ELEMENT);
        if (s.constant !== undefined) throw new Error(`column file: section ${name} is not a paged column`);
        readFully(fd, into.subarray(0, count), s.at);
      },
      constant: (name: string): number | undefined => offsets.get(name)?.constant,
    };
    const rest = deserialize(restBytes) as StoredColumns['rest'];
    const columns = new RecordColumns({ n: header.n, rest, src });
    let lineOf = (i: number): number => i + 1;
    if (header.sparse_lines) {
      const lines = new Int32Array(header.n);
      src.fill('lines', lines, header.n);
      lineOf = (i) => lines[i]!;
    }
    return { columns, lineOf, truncatedTail: header.truncated_tail };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the column file of a read of `recordsPath` (see the invariants for when); `source` is
 * the identity records.jsonl had before it was read. Returns whether a file was written.
 */
export function saveColumnsFile(recordsPath: string, source: Header['source'] | null, read: ColumnsRead): boolean {
  const path = columnsPath(recordsPath);
  if (path === null || source === null || read.truncatedTail || !existsSync(join(dirname(recordsPath), 'result.json'))) return false;
  const now = sourceIdentity(recordsPath);
  if (now === null || !sameSource(now, source)) return false;
  const stored = read.columns.stored();
  let sparse = false;
  for (let i = 0; i < stored.n && !sparse; i++) sparse = read.lineOf(i) !== i + 1;
  const sections = stored.sections.map((s) => ({ ...s }));
  if (sparse) {
    const lines = new Int32Array(stored.n);
    for (let i = 0; i < stored.n; i++) lines[i] = read.lineOf(i);
    sections.push({ name: 'lines', parts: [lines] });
  }
  const rest = serialize(stored.rest);
  // Most of a run's integer columns hold one value (stage, worker, turn, token counts asked for,
  // tasks…): such a column is kept as that value, and loaded as one shared page.
  const constants = sections.map((s) => (s.paged ? constantOf(s.parts) : undefined));
  const header: Header = {
    format: FORMAT,
    layout: STORED_LAYOUT,
    source,
    n: stored.n,
    truncated_tail: false,
    sparse_lines: sparse,
    rest_bytes: rest.length,
    sections: sections.map((s, k) => ({
      name: s.name,
      // An empty section's element size is never checked (nothing to lay out).
      bytes_per_value: s.parts[0]?.BYTES_PER_ELEMENT ?? 0,
      count: s.parts.reduce((a, p) => a + p.length, 0),
      ...(constants[k] !== undefined ? { constant: constants[k] } : {}),
    })),
  };
  const headerText = Buffer.from(JSON.stringify(header), 'utf8');
  const fixed = Buffer.alloc(16);
  MAGIC.copy(fixed, 0);
  fixed.writeUInt32LE(headerText.length, 8);
  const zeros = new Uint8Array(8);
  const temp = `${path}.${process.pid}.tmp`;
  let fd: number | null = null;
  try {
    fd = openSync(temp, 'w');
    writeFully(fd, fixed);
    let at = 16;
    const put = (b: ArrayBufferView): void => {
      writeFully(fd!, b);
      at += b.byteLength;
    };
    const align = (): void => {
      if (at % 8 !== 0) put(zeros.subarray(0, 8 - (at % 8)));
    };
    put(headerText);
    align();
    put(rest);
    align();
    sections.forEach((s, k) => {
      if (constants[k] !== undefined) return;
      for (const p of s.parts) put(p);
      align();
    });
    closeSync(fd);
    fd = null;
    renameSync(temp, path);
    return true;
  } catch {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // nothing was left
    }
    return false;
  }
}
