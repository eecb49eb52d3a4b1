/**
 * records.cols made by the run from the records it wrote (store/written-columns.ts) holds what the
 * file a read of records.jsonl makes holds (typed sections byte for byte, the rest value for value): over random records of every kind through the real
 * writer, and over virtual runs with preemptions and failures.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecordsWriter } from '../../src/store/records-file.js';
import { COLUMNS_FILE, loadColumnsFile } from '../../src/store/records-columns-file.js';
import { readRecordColumns } from '../../src/store/records-reader.js';
import { keepWrittenColumns } from '../../src/store/written-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { recordArb } from '../helpers/random-records.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A column file's parts: its header (the rest's length aside), the rest as values (V8's
 * serializer may write one number as an int or a double, depending on how it was made), the
 * typed sections as bytes.
 */
function parts(file: Buffer): { header: unknown; rest: unknown; sections: Buffer } {
  const headerBytes = file.readUInt32LE(8);
  const { rest_bytes, ...header } = JSON.parse(file.subarray(16, 16 + headerBytes).toString('utf8')) as { rest_bytes: number };
  const at = (16 + headerBytes + 7) & ~7;
  return { header, rest: deserialize(file.subarray(at, at + rest_bytes)), sections: file.subarray((at + rest_bytes + 7) & ~7) };
}

/** Two column files hold the same columns. */
function same(kept: Buffer, read: Buffer): void {
  const a = parts(kept);
  const b = parts(read);
  expect(a.header).toStrictEqual(b.header);
  expect(a.rest).toStrictEqual(b.rest);
  expect(a.sections.equals(b.sections)).toBe(true);
}

/** The column file a read of the text makes for `dir`, after moving the one there aside; both as bytes. */
function keptAndRead(dir: string): { kept: Buffer; read: Buffer | null; error: string | null } {
  const cols = join(dir, COLUMNS_FILE);
  const kept = readFileSync(cols);
  renameSync(cols, `${cols}.kept`);
  let error: string | null = null;
  try {
    readRecordColumns(join(dir, 'records.jsonl'));
  } catch (err) {
    error = (err as Error).message;
  }
  const read = existsSync(cols) ? readFileSync(cols) : null;
  renameSync(`${cols}.kept`, cols);
  return { kept, read, error };
}

/** `records` written to dir/records.jsonl by the run's writer, a finished run's result.json beside, records.cols kept from them; then keptAndRead. */
function writeAndKeep(dir: string, records: RequestRecord[]): ReturnType<typeof keptAndRead> {
  const path = join(dir, 'records.jsonl');
  const writer = new RecordsWriter(path);
  for (const r of records) writer.write(r);
  writer.close();
  writeFileSync(join(dir, 'result.json'), '{}\n');
  expect(keepWrittenColumns(path, records)).toBe(true);
  return keptAndRead(dir);
}

describe('records.cols from the records a run wrote', () => {
  it('holds what a read of the text keeps, over random records through the writer (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(recordArb, fc.option(fc.double({ min: -1, max: 1, noNaN: true }))), { minLength: 1, maxLength: 25 }), (items) => {
        const dir = tempDir('written-cols');
        const path = join(dir, 'records.jsonl');
        const records: RequestRecord[] = items.map(([{ r }, id], i) => ({ ...r, id: id === null ? i : i + id }));
        const { kept, read, error } = writeAndKeep(dir, records);
        if (error !== null) {
          // The text is refused (records of another run mixed in): the kept file is refused the same way on load.
          expect(read).toBeNull();
          expect(() => readRecordColumns(path)).toThrow(error);
          return;
        }
        expect(read).not.toBeNull();
        same(kept, read!);
        rmSync(dir, { recursive: true });
      }),
      { numRuns: 150 },
    );
  });

  it('holds what a read of the text keeps when records share a step timeline (property)', () => {
    const stepsArb = fc.array(fc.double({ min: 0.5, max: 60, noNaN: true }), { minLength: 3, maxLength: 80 }).map((gaps) => {
      let t = 0;
      return gaps.map((g) => (t += g));
    });
    const spanArb = fc.record({ a: fc.nat(), c: fc.integer({ min: 1, max: 40 }), skip: fc.boolean(), fail: fc.boolean(), text: fc.boolean() });
    fc.assert(
      fc.property(stepsArb, fc.array(spanArb, { minLength: 1, maxLength: 30 }), (steps, spans) => {
        const dir = tempDir('written-cols-shared');
        const records: RequestRecord[] = spans.map(({ a, c, skip, fail, text }, id) => {
          const from = a % steps.length;
          const chunks = steps.slice(from, from + c);
          if (skip && chunks.length > 2) chunks.splice(1, 1);
          return {
            ...emptyRecord(id, Math.max(0, chunks[0]! - 5)),
            sent_ms: Math.max(0, chunks[0]! - 5),
            first_token_ms: chunks[0]!,
            chunk_ms: Float64Array.from(chunks),
            end_ms: chunks.at(-1)! + 0.25,
            output_tokens: fail ? 0 : chunks.length,
            status: fail ? 'error' : 'ok',
            error_class: fail ? 'http_5xx' : null,
            error_message: fail ? 'boom' : null,
            output_text: text ? 'hi' : null,
            token_source: 'usage',
          };
        });
        const { kept, read, error } = writeAndKeep(dir, records);
        expect(error).toBeNull();
        same(kept, read!);
        rmSync(dir, { recursive: true });
      }),
      { numRuns: 150 },
    );
  });

  it('is written by sim run and holds what a read of its text keeps: preemptions, reasoning', async () => {
    const kv = join(tempDir('written-cols-kv'), 'kv.yaml');
    writeFileSync(kv, 'sim:\n  num_gpu_blocks_override: 100\n');
    const cases = [
      ['--num-prompts', '200', '--request-rate', '20', '--seed', '5'],
      // A small KV cache under a burst: ~116 preemptions (sequences that are not one stretch of steps).
      ['--config', kv, '--num-prompts', '60', '--request-rate', 'inf', '--random-input-len', '200', '--random-output-len', '600', '--seed', '2'],
      ['--endpoint', '/v1/chat/completions', '--reasoning-tokens', '40', '--num-prompts', '30', '--seed', '4'],
    ];
    for (const args of cases) {
      const results = tempDir('written-cols-sim');
      const out = await runCli(['sim', 'run', ...args, '--result-dir', results, '--no-report', '--quiet']);
      expect(out.code, out.stderr).toBe(0);
      const dir = join(results, readdirSync(results).find((d) => !d.startsWith('.'))!);
      expect(loadColumnsFile(join(dir, 'records.jsonl'))).not.toBeNull();
      const { kept, read, error } = keptAndRead(dir);
      expect(error).toBeNull();
      same(kept, read!);
    }
  });
});
