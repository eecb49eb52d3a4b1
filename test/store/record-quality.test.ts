import { describe, expect, it } from 'vitest';
import { emptyRecord } from '../../src/record/record.js';
import { RecordParseError, recordFromJsonLine, recordToJsonLine } from '../../src/record/jsonl.js';

describe('records.jsonl: the quality field', () => {
  it('round-trips a check outcome and the kept answer text', () => {
    const r = emptyRecord(3, 1.5);
    r.output_text = 'The answer is 42.';
    r.quality = { kind: 'numeric', pass: true, outcome: 'correct', reason: 'expected 42, got 42' };
    const back = recordFromJsonLine(recordToJsonLine(r));
    expect(back.quality).toEqual(r.quality);
    expect(back.output_text).toBe('The answer is 42.');
  });

  it('is absent when the line has none, and a malformed one names the field', () => {
    expect('quality' in recordFromJsonLine(recordToJsonLine(emptyRecord(0, 0)))).toBe(false);
    const line = JSON.stringify({ ...JSON.parse(recordToJsonLine(emptyRecord(0, 0))), quality: { kind: 'exact', pass: 'yes', outcome: 'correct' } });
    expect(() => recordFromJsonLine(line)).toThrow(RecordParseError);
    expect(() => recordFromJsonLine(line)).toThrow(/quality/);
  });
});
