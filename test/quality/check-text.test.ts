import { describe, expect, it } from 'vitest';
import type { QualityCheck } from '../../src/quality/check-types.js';
import { evaluateCheck } from '../../src/quality/evaluate.js';

async function grade(check: QualityCheck, answer: string | null): Promise<[boolean, string]> {
  const o = await evaluateCheck(check, answer);
  return [o.pass, o.outcome];
}

describe('empty answers', () => {
  it('null, empty and whitespace-only answers are `empty` for every kind', async () => {
    for (const answer of [null, '', '  \n ']) {
      expect(await grade({ kind: 'exact', expected: '' }, answer)).toEqual([false, 'empty']);
      expect(await grade({ kind: 'refusal', should_refuse: false }, answer)).toEqual([false, 'empty']);
      expect(await grade({ kind: 'closed_book', expected: [], answerable: false }, answer)).toEqual([false, 'empty']);
    }
  });
});

describe('exact', () => {
  it('ignores surrounding whitespace only', async () => {
    expect(await grade({ kind: 'exact', expected: 'Paris' }, '  Paris\n')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'exact', expected: 'Paris' }, 'paris')).toEqual([false, 'wrong']);
    expect(await grade({ kind: 'exact', expected: 'New York' }, 'New  York')).toEqual([false, 'wrong']);
  });
});

describe('normalized', () => {
  it('ignores case, punctuation, articles and spacing; any of several expected texts', async () => {
    expect(await grade({ kind: 'normalized', expected: 'The Eiffel Tower' }, 'eiffel   tower!')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'normalized', expected: ['NYC', 'New York City'] }, 'new york city.')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'normalized', expected: '3.14' }, '3.14')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'normalized', expected: '3.14' }, '314')).toEqual([false, 'wrong']);
    expect(await grade({ kind: 'normalized', expected: 'Eiffel Tower' }, 'the Louvre')).toEqual([false, 'wrong']);
    // each of the three articles is dropped, "an" included; words merely starting with one are kept
    expect(await grade({ kind: 'normalized', expected: 'apple' }, 'An apple')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'normalized', expected: 'apple' }, 'a apple')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'normalized', expected: 'apple' }, 'another apple')).toEqual([false, 'wrong']);
  });
});

describe('regex', () => {
  it('matches anywhere unless anchored; flags apply', async () => {
    expect(await grade({ kind: 'regex', pattern: '\\d{4}-\\d{2}-\\d{2}' }, 'Released on 2021-03-04.')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'regex', pattern: '^yes$', flags: 'i' }, 'YES')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'regex', pattern: '^yes$' }, 'yes, indeed')).toEqual([false, 'wrong']);
  });
});

describe('contains', () => {
  it('all by default, any with any: true, case-insensitive', async () => {
    const all: QualityCheck = { kind: 'contains', expected: ['Oxygen', 'hydrogen'] };
    expect(await grade(all, 'Water is HYDROGEN and oxygen.')).toEqual([true, 'correct']);
    expect(await grade(all, 'Water contains oxygen.')).toEqual([false, 'wrong']);
    expect(await grade({ ...all, any: true }, 'Water contains oxygen.')).toEqual([true, 'correct']);
    expect(await grade({ ...all, any: true }, 'Water is wet.')).toEqual([false, 'wrong']);
  });
});

describe('choice', () => {
  const c: QualityCheck = { kind: 'choice', expected: 'B', choices: ['Berlin', 'Paris', 'Rome', 'Madrid'] };
  it.each([
    ['Answer: B', true],
    ['The answer is (B).', true],
    ['B', true],
    ['b', true],
    ['(B)', true],
    ['B. Paris', true],
    ['B) Paris', true],
    ['Paris', true],
    ['Let me think. Berlin is in Germany, so (B)', true],
    ['Answer: C', false],
    ['C. Rome', false],
    ['A', false],
    ['I would pick a city in France', false],
  ])('%j → pass %s', async (answer, pass) => {
    expect((await evaluateCheck(c, answer)).pass).toBe(pass);
  });
  it('says when no letter is found', async () => {
    expect(await evaluateCheck(c, 'no idea')).toMatchObject({ pass: false, outcome: 'wrong', reason: expect.stringContaining('no choice letter') });
  });
  it('an explicit "answer" statement wins over a leading letter', async () => {
    expect((await evaluateCheck(c, 'A. is wrong and C. too. Final answer: B')).pass).toBe(true);
  });
});

describe('numeric', () => {
  it('shows the slack without float noise', async () => {
    // 0.01 × 5.6e-6 is 5.6000000000000005e-8 in binary floating point.
    const miss = await evaluateCheck({ kind: 'numeric', expected: 5.6e-6, relative: 0.01 }, '7e-6');
    expect(miss.reason).toBe('got 0.000007, expected 0.0000056 (±5.6e-8)');
    const hit = await evaluateCheck({ kind: 'numeric', expected: 100, tolerance: 0.1 + 0.2 }, '100.2');
    expect(hit.reason).toBe('100.2 within 0.3 of 100');
  });

  it('takes the last number, handles commas, signs, units and exponents', async () => {
    expect(await grade({ kind: 'numeric', expected: 1234.5 }, 'First 12, then the total is 1,234.5 km')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: -40 }, 'It is -40 °C.')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 3e8 }, 'about 3.0e8 m/s')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 0.3 }, '0.30000000000000004')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 42 }, '42 is what 6 times 7 gives: 41')).toEqual([false, 'wrong']);
    expect(await grade({ kind: 'numeric', expected: 42 }, 'forty-two')).toEqual([false, 'wrong']);
  });
  it('absolute and relative tolerance', async () => {
    expect(await grade({ kind: 'numeric', expected: 100, tolerance: 0.5 }, '100.4')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 100, tolerance: 0.5 }, '100.6')).toEqual([false, 'wrong']);
    // a difference equal to the tolerance is within it (0.5 and 100.5 are exact in binary)
    expect(await grade({ kind: 'numeric', expected: 100, tolerance: 0.5 }, '100.5')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 100, tolerance: 0.5 }, '99.5')).toEqual([true, 'correct']);
    // relative 1% of 100 = 1
    expect(await grade({ kind: 'numeric', expected: 100, relative: 0.01 }, '99.1')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'numeric', expected: 100, relative: 0.01 }, '98.9')).toEqual([false, 'wrong']);
  });
});

describe('max_length', () => {
  it('counts code points and whitespace-separated words', async () => {
    expect(await grade({ kind: 'max_length', max_chars: 5 }, 'héllo')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'max_length', max_chars: 4 }, 'héllo')).toEqual([false, 'wrong']);
    expect(await grade({ kind: 'max_length', max_words: 3 }, 'one two  three')).toEqual([true, 'correct']);
    expect(await grade({ kind: 'max_length', max_words: 3 }, 'one two three four')).toEqual([false, 'wrong']);
  });
});
