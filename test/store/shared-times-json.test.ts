import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordToJsonLine, recordToJsonLineSharedTimes } from '../../src/record/jsonl.js';
import { emptyRecord } from '../../src/record/record.js';

describe('records.jsonl lines for records that share chunk times (virtual time)', () => {
  it('are the same text as the plain writer gives, whatever the fields hold (property)', () => {
    const steps = [0.1, 12.3456789, 40.0000004, 1e6 + 0.0005, 3_600_000.123456];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: steps.length - 1 }), { maxLength: 12 }),
        fc.option(fc.string(), { nil: null }),
        fc.option(fc.constantFrom('\u0000chunk_ms\u0000', 'chunk_ms', '"', 'x'), { nil: null }),
        fc.double({ min: 0, max: 1e7, noNaN: true }),
        (idx, task, text, sent) => {
          const r = emptyRecord(7, sent);
          r.chunk_ms = Float64Array.from(idx, (i) => steps[i]!);
          r.task = task;
          r.output_text = text;
          r.reasoning_tokens = idx.length;
          r.first_reasoning_ms = idx.length > 0 ? r.chunk_ms[0]! : null;
          expect(recordToJsonLineSharedTimes(r)).toBe(recordToJsonLine(r));
        },
      ),
    );
  });
});
