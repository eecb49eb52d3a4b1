/**
 * timesProblem (store/records-check.ts) by hand: the first problem in its order (a negative time
 * in field order, end before send, first token outside the request, chunks before the send or
 * going back), the same line for a plain record and its column view.
 */
import { describe, expect, it } from 'vitest';
import { RecordColumns } from '../../src/record/record-columns.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';
import { timesProblem } from '../../src/store/records-check.js';

const rec = (over: Partial<RequestRecord>): RequestRecord => ({ ...emptyRecord(0, 10), first_token_ms: 12, chunk_ms: Float64Array.of(12, 14), end_ms: 20, ...over });

function both(r: RequestRecord): string | null {
  const cols = new RecordColumns();
  cols.add(r);
  const plain = timesProblem(r);
  expect(timesProblem(cols.view(0))).toBe(plain);
  return plain;
}

describe('timesProblem', () => {
  it('accepts a record in order, and one without a first token or chunks', () => {
    expect(both(rec({}))).toBeNull();
    expect(both(rec({ first_token_ms: null, chunk_ms: new Float64Array(0) }))).toBeNull();
  });

  it('names the first negative time in field order', () => {
    expect(both(rec({ scheduled_ms: -1, sent_ms: -2 }))).toBe("scheduled_ms is negative (-1); times are ms since the run's start");
    expect(both(rec({ sent_ms: -2, end_ms: -3 }))).toBe("sent_ms is negative (-2); times are ms since the run's start");
    expect(both(rec({ end_ms: -3, first_token_ms: -4 }))).toBe("end_ms is negative (-3); times are ms since the run's start");
    expect(both(rec({ first_token_ms: -4 }))).toBe("first_token_ms is negative (-4); times are ms since the run's start");
  });

  it('then the order of send, first token, end and chunks', () => {
    expect(both(rec({ end_ms: 9 }))).toBe('end_ms (9) is before sent_ms (10)');
    expect(both(rec({ first_token_ms: 9 }))).toBe('first_token_ms (9) is outside sent_ms … end_ms (10 … 20)');
    expect(both(rec({ first_token_ms: 21 }))).toBe('first_token_ms (21) is outside sent_ms … end_ms (10 … 20)');
    expect(both(rec({ chunk_ms: Float64Array.of(9, 14) }))).toBe('chunk_ms[0] (9) is before sent_ms (10)');
    expect(both(rec({ chunk_ms: Float64Array.of(12, 14, 13) }))).toBe('chunk_ms goes back in time at index 2 (14 then 13)');
  });
});
