/**
 * Virtual time writes records.jsonl lines as recordToJsonLineParts' head and tail around chunk
 * times formatted once per step (RecordsWriter.writeLineParts): the file must hold exactly the
 * bytes the plain writer gives, whatever the fields hold.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkTimeJson, recordToJsonLine, recordToJsonLineParts } from '../../src/record/jsonl.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { RecordsWriter } from '../../src/store/records-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const steps = [0.1, 12.3456789, 40.0000004, 1e6 + 0.0005, 3_600_000.123456];
const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

const record = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: steps.length - 1 }), { minLength: 1, maxLength: 12 }),
    fc.option(fc.string(), { nil: null }),
    fc.option(fc.constantFrom('\u0000chunk_ms\u0000', 'chunk_ms', '"', 'x', 'é✓'), { nil: null }),
    fc.double({ min: 0, max: 1e7, noNaN: true }),
  )
  .map(([idx, task, text, sent]) => {
    const r = emptyRecord(7, sent);
    r.chunk_ms = Float64Array.from(idx, (i) => steps[i]!);
    r.task = task;
    r.output_text = text;
    r.reasoning_tokens = idx.length;
    r.first_reasoning_ms = r.chunk_ms[0]!;
    return r;
  });

describe('records.jsonl lines around preformatted chunk times', () => {
  const dir = tempDir('json-line-parts');

  it('head + chunk text + tail is the plain line, or null when the place is ambiguous (property)', () => {
    fc.assert(
      fc.property(record, (r) => {
        const parts = recordToJsonLineParts(r);
        if (parts === null) {
          expect(r.task === '\u0000chunk_ms\u0000' || r.output_text === '\u0000chunk_ms\u0000').toBe(true);
          return;
        }
        expect(`${parts.head}[${Array.from(r.chunk_ms, chunkTimeJson).join(',')}]${parts.tail}`).toBe(recordToJsonLine(r));
      }),
    );
  });

  it('the writer puts the same bytes in the file as for plain lines, across batch boundaries', () => {
    const rs: RequestRecord[] = fc.sample(record, { numRuns: 3000, seed: 5 });
    const plain = join(dir, 'plain.jsonl');
    const parted = join(dir, 'parts.jsonl');
    const a = new RecordsWriter(plain);
    const b = new RecordsWriter(parted);
    for (const r of rs) {
      a.write(r);
      const parts = recordToJsonLineParts(r);
      if (parts) b.writeLineParts(parts.head, ascii(Array.from(r.chunk_ms, chunkTimeJson).join(',')), parts.tail);
      else b.write(r);
    }
    a.close();
    b.close();
    const bytes = readFileSync(parted);
    expect(bytes.length).toBeGreaterThan(2 * 64 * 1024); // several batches
    expect(bytes.equals(readFileSync(plain))).toBe(true);
  });
});
