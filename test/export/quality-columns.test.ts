import { describe, expect, it } from 'vitest';
import { RECORD_COLUMNS } from '../../src/export/record-columns.js';
import { emptyRecord } from '../../src/record/record.js';

const cell = (name: string, r: ReturnType<typeof emptyRecord>) => RECORD_COLUMNS.find((c) => c.name === name)!.get(r);

describe('export columns: the answer check', () => {
  it('flattens record.quality into four columns, empty without a check', () => {
    const r = emptyRecord(0, 0);
    r.quality = { kind: 'numeric', pass: false, outcome: 'wrong', reason: 'expected 42, got 41' };
    expect(['quality_kind', 'quality_pass', 'quality_outcome', 'quality_reason'].map((n) => cell(n, r))).toEqual(['numeric', 0, 'wrong', 'expected 42, got 41']);
    const plain = emptyRecord(1, 0);
    expect(['quality_kind', 'quality_pass', 'quality_outcome', 'quality_reason'].map((n) => cell(n, plain))).toEqual([null, null, null, null]);
  });
});
