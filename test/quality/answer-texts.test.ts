/** Answers derived from a check alone (for datasets that give none): the reference passes, the wrong one fails. */
import { describe, expect, it } from 'vitest';
import { malformedJson, referenceFor, wrongFor } from '../../src/quality/answer-texts.js';
import type { QualityCheck } from '../../src/quality/check-types.js';
import { evaluateCheck } from '../../src/quality/evaluate.js';

describe('derived answer texts', () => {
  const checks: QualityCheck[] = [
    { kind: 'exact', expected: 'Paris' },
    { kind: 'normalized', expected: ['The Nile', 'Nile'] },
    { kind: 'contains', expected: ['oxygen', 'hydrogen'] },
    { kind: 'choice', expected: 'A' },
    { kind: 'choice', expected: 'C', choices: ['x', 'y', 'z'] },
    { kind: 'numeric', expected: 42 },
    { kind: 'numeric', expected: -3.5, tolerance: 0.5 },
    { kind: 'numeric', expected: 1000, relative: 0.05 },
    { kind: 'closed_book', expected: ['Canberra'], answerable: true },
    { kind: 'closed_book', expected: [], answerable: false },
    { kind: 'refusal', should_refuse: true },
  ];
  it.each(checks.map((c) => [JSON.stringify(c), c] as const))('%s', async (_name, check) => {
    const reference = referenceFor(check)!;
    expect(reference).not.toBeNull();
    expect((await evaluateCheck(check, reference)).pass).toBe(true);
    expect((await evaluateCheck(check, wrongFor(check, reference))).pass).toBe(false);
  });
  it('kinds that need a given reference get none, but still a failing wrong answer from it', async () => {
    const json: QualityCheck = { kind: 'json', schema: { type: 'object' } };
    expect(referenceFor(json)).toBeNull();
    expect(await evaluateCheck(json, wrongFor(json, '{"a": [1]}'))).toMatchObject({ pass: false, outcome: 'malformed' });
    const cite: QualityCheck = { kind: 'citation', documents: ['Water boils at 100 degrees.'] };
    expect((await evaluateCheck(cite, 'Water boils at 100 degrees [1].')).pass).toBe(true);
    expect((await evaluateCheck(cite, wrongFor(cite, 'Water boils at 100 degrees [1].'))).pass).toBe(false);
    const benign: QualityCheck = { kind: 'refusal', should_refuse: false };
    expect((await evaluateCheck(benign, wrongFor(benign, 'Use kill.'))).outcome).toBe('refused');
    const short: QualityCheck = { kind: 'max_length', max_words: 3 };
    expect((await evaluateCheck(short, wrongFor(short, 'one two'))).pass).toBe(false);
  });
  it('malformedJson breaks bare and fenced JSON', () => {
    for (const ref of ['{"a": 1}', '[1, 2]', '```json\n{"a": {"b": 2}}\n```', '42']) expect(() => JSON.parse(malformedJson(ref).replace(/```(json)?/g, ''))).toThrow();
  });
});
