/**
 * The bound on what `kill -9` can lose (docs/records.md §Durability): the writer holds at most
 * FLUSH_BYTES of lines, none older than FLUSH_MS. Checked on a fake clock (vitest fake timers),
 * so it holds exactly, whatever the machine's load.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { FLUSH_BYTES, FLUSH_MS, RecordsWriter, readRecordsFile } from '../../src/store/records-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const record = (id: number, textLen = 0): RequestRecord => ({ ...emptyRecord(id, id), output_text: textLen > 0 ? 'x'.repeat(textLen) : null });
const onDisk = (path: string): number => readRecordsFile(path).records.length;

describe('RecordsWriter flush policy', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('states the bound docs/records.md gives', () => {
    expect(FLUSH_BYTES).toBe(64 * 1024);
    expect(FLUSH_MS).toBe(200);
  });

  it('a lone record reaches the file FLUSH_MS after it was written, not later', () => {
    const path = join(tempDir('records'), 'records.jsonl');
    const w = new RecordsWriter(path);
    w.write(record(0));
    expect(onDisk(path)).toBe(0);
    vi.advanceTimersByTime(FLUSH_MS - 1);
    expect(onDisk(path)).toBe(0);
    vi.advanceTimersByTime(1);
    expect(onDisk(path)).toBe(1);
    w.close();
  });

  it('a steady trickle cannot postpone the write: no record waits longer than FLUSH_MS', () => {
    const path = join(tempDir('records'), 'records.jsonl');
    const w = new RecordsWriter(path);
    const writtenAt: number[] = [];
    // one record every 7 ms for 3 s; after each step, everything written FLUSH_MS ago or earlier is on disk
    for (let t = 0; t < 3000; t += 7) {
      w.write(record(writtenAt.length));
      writtenAt.push(t);
      vi.advanceTimersByTime(7);
      const now = t + 7;
      const due = writtenAt.filter((at) => at <= now - FLUSH_MS).length;
      expect(onDisk(path)).toBeGreaterThanOrEqual(due);
    }
    w.close();
    expect(onDisk(path)).toBe(writtenAt.length);
  });

  it('a batch is written as soon as it reaches FLUSH_BYTES: at most that much is ever held', () => {
    const path = join(tempDir('records'), 'records.jsonl');
    const w = new RecordsWriter(path);
    let bytes = 0;
    for (let i = 0; i < 200; i++) {
      const r = record(i, 3000); // ~3 KB lines: a batch fills within ~22 records
      bytes += recordToJsonLine(r).length + 1;
      w.write(r); // no time passes: only the size can trigger a write
      expect(bytes - statSync(path).size).toBeLessThan(FLUSH_BYTES);
    }
    w.close();
    expect(statSync(path).size).toBe(bytes);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });
});

describe('RecordsWriter on a full disk', () => {
  it('ENOSPC (here /dev/full) stops the writing, counts what was lost, and throws nothing', () => {
    expect(() => {
      const plain = new RecordsWriter('/dev/full');
      plain.write(record(0));
      plain.flush();
    }).toThrow(/ENOSPC/); // without survive: thrown as before
    const w = new RecordsWriter('/dev/full', { survive: true });
    w.write(record(0));
    w.write(record(1));
    expect(w.fault).toBeNull(); // nothing written yet: the batch waits
    w.flush();
    expect(w.fault).toEqual({ code: 'ENOSPC', path: '/dev/full', linesWritten: 0, linesLost: 2 });
    w.write(record(2));
    w.writeLine(recordToJsonLine(record(3)));
    w.close();
    expect(w.fault).toEqual({ code: 'ENOSPC', path: '/dev/full', linesWritten: 0, linesLost: 4 });
  });
});
