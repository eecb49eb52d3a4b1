/**
 * The streaming records reader: lines cut at every chunk boundary (a line split across reads, a
 * UTF-8 character cut in half, a newline at a read's first or last byte) come out whole and in
 * order; the reader over a file gives what a whole-file split would.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/store/line-splitter.js';
import { readRecordsFile } from '../../src/store/records-reader.js';
import { emptyRecord } from '../../src/record/record.js';
import { recordFromJsonLine, recordToJsonLine } from '../../src/record/jsonl.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The oracle: the whole text split at '\n'; the part after the last '\n' is the tail. */
function oracle(text: string): { lines: string[]; tail: string | null } {
  const parts = text.split('\n');
  const last = parts.pop()!;
  return { lines: parts, tail: last === '' ? null : last };
}

function split(bytes: Buffer, cuts: number[]): { lines: string[]; numbers: number[]; tail: string | null } {
  const lines: string[] = [];
  const numbers: number[] = [];
  const s = new LineSplitter((line, n) => {
    lines.push(line.toString('utf8'));
    numbers.push(n);
  });
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, c));
    at = c;
  }
  return { lines, numbers, tail: s.end()?.toString('utf8') ?? null };
}

// Text with newlines, blank lines and characters of 1 to 4 UTF-8 bytes.
const piece = fc.constantFrom('a', '{"id":1}', '\n', '\n\n', 'é', '€', '😀', ' ', 'ß\n');
const text = fc.array(piece, { maxLength: 60 }).map((p) => p.join(''));

describe('LineSplitter', () => {
  it('gives the same lines as a whole-text split wherever one cut falls (every byte position)', () => {
    fc.assert(
      fc.property(text, (t) => {
        const bytes = Buffer.from(t, 'utf8');
        const want = oracle(t);
        for (let cut = 0; cut <= bytes.length; cut++) {
          const got = split(bytes, [cut]);
          expect(got.lines).toEqual(want.lines);
          expect(got.tail).toEqual(want.tail);
          expect(got.numbers).toEqual(want.lines.map((_, i) => i + 1));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same lines for any set of cuts (many chunks, empty chunks)', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 20 }), (t, raw) => {
        const bytes = Buffer.from(t, 'utf8');
        const cuts = raw.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b);
        const got = split(bytes, cuts);
        const want = oracle(t);
        expect(got.lines).toEqual(want.lines);
        expect(got.tail).toEqual(want.tail);
      }),
      { numRuns: 300 },
    );
  });

  it('does not keep a reference to the caller\'s buffer across pushes (it is refilled by the next read)', () => {
    const lines: string[] = [];
    const s = new LineSplitter((t) => lines.push(t.toString('utf8')));
    const buf = Buffer.from('abc');
    s.push(buf);
    buf.write('xyz');
    s.push(Buffer.from('\n'));
    expect(lines).toEqual(['abc']);
  });
});

describe('readRecordsFile (streamed)', () => {
  const recs = Array.from({ length: 40 }, (_, i) => ({ ...emptyRecord(i, i * 10), output_text: i % 3 === 0 ? `ünïcödé ${'😀'.repeat(i)}` : null, chunk_ms: Float64Array.from({ length: i % 7 }, (_, j) => i * 10 + j) }));
  const body = recs.map((r) => `${recordToJsonLine(r)}\n`).join('');

  it('reads the same records at every read size from 1 byte to past the file', () => {
    const path = join(tempDir('reader'), 'records.jsonl');
    writeFileSync(path, body);
    const whole = readRecordsFile(path).records;
    expect(whole.map((r) => r.id)).toEqual(recs.map((r) => r.id));
    expect(whole.map((r) => r.output_text)).toEqual(recs.map((r) => r.output_text));
    for (const chunkBytes of [1, 2, 3, 5, 64, 333, 4096, body.length + 1]) {
      const got = readRecordsFile(path, { chunkBytes });
      expect(got.truncatedTail).toBe(false);
      expect(got.records).toEqual(whole);
    }
  });

  it('skips a truncated last line and says so; a bad line before the end names its line', () => {
    const dir = tempDir('reader');
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, body + recordToJsonLine(recs[1]!).slice(0, 30));
    for (const chunkBytes of [7, 1 << 20]) {
      const got = readRecordsFile(cut, { chunkBytes });
      expect(got.truncatedTail).toBe(true);
      expect(got.records).toHaveLength(recs.length);
    }
    const bad = join(dir, 'bad.jsonl');
    const lines = body.split('\n');
    lines[5] = '{"id": oops';
    writeFileSync(bad, lines.join('\n'));
    expect(() => readRecordsFile(bad, { chunkBytes: 11 })).toThrow(`${bad}:6: not valid JSON`);
  });

  it('reads a last line without its newline when it is whole', () => {
    const path = join(tempDir('reader'), 'records.jsonl');
    writeFileSync(path, body.slice(0, -1));
    const got = readRecordsFile(path, { chunkBytes: 13 });
    expect(got.truncatedTail).toBe(false);
    expect(got.records).toHaveLength(recs.length);
  });

  it('a bad last line that ends with its newline is an error naming it, not a truncated tail', () => {
    const path = join(tempDir('reader'), 'records.jsonl');
    const n = recs.length + 1;
    writeFileSync(path, `${body}{"id": oops\n`);
    for (const chunkBytes of [5, 1 << 20]) expect(() => readRecordsFile(path, { chunkBytes })).toThrow(`${path}:${n}: not valid JSON`);
  });

  it('a record written without scheduled_ms (before it existed) was scheduled when it was sent', () => {
    const line = JSON.parse(recordToJsonLine({ ...emptyRecord(3, 0), sent_ms: 412.5, end_ms: 900 })) as Record<string, unknown>;
    delete line.scheduled_ms;
    const r = recordFromJsonLine(JSON.stringify(line));
    expect(r.scheduled_ms).toBe(412.5);
    expect(r.sent_ms).toBe(412.5);
  });
});
