import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { parseCheck } from '../../src/quality/parse-check.js';

const where = 'data.jsonl:17';

function message(raw: unknown): string {
  try {
    parseCheck(raw, where);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error('parseCheck accepted bad input');
}

describe('parseCheck: checks that cannot be evaluated are one line naming the dataset line', () => {
  it.each([
    [{ kind: 'regex', pattern: '(unclosed' }, /^data\.jsonl:17: check\.pattern: invalid regex: /],
    [{ kind: 'regex', pattern: 'a', flags: 'q' }, /^data\.jsonl:17: check\.flags: invalid regex: /],
    [{ kind: 'json', schema: { type: 'nonsense' } }, /^data\.jsonl:17: check\.schema: invalid JSON schema: /],
    [{ kind: 'json', schema: [] }, /^data\.jsonl:17: check\.schema: must be a JSON-Schema object$/],
    [{ kind: 'code', language: 'javascript' }, /^data\.jsonl:17: check\.tests: a code check needs tests/],
    [{ kind: 'code', tests: '   ' }, /^data\.jsonl:17: check\.tests: a code check needs tests/],
    [{ kind: 'code', tests: 'x', language: 'python' }, /^data\.jsonl:17: check\.language: only "javascript"/],
    [{ kind: 'code', tests: 'x', entry: 'a b' }, /check\.entry: must be a JavaScript identifier/],
    [{ kind: 'fuzzy', expected: 'x' }, /^data\.jsonl:17: check\.kind: "fuzzy" is not a check kind \(one of exact, /],
    [{ expected: 'x' }, /^data\.jsonl:17: check\.kind: undefined is not a check kind/],
    ['exact', /^data\.jsonl:17: check: must be an object with a "kind"$/],
    [{ kind: 'exact' }, /^data\.jsonl:17: check\.expected: must be a string, got nothing$/],
    [{ kind: 'choice', expected: 'E', choices: ['a', 'b', 'c', 'd'] }, /check\.expected: must be one letter among A–D, got "E"/],
    [{ kind: 'numeric', expected: 'many' }, /check\.expected: must be a number/],
    [{ kind: 'numeric', expected: 1, tolerance: -1 }, /check\.tolerance: must be ≥ 0/],
    [{ kind: 'max_length' }, /check: max_length needs max_chars or max_words/],
    [{ kind: 'max_length', max_chars: 2.5 }, /check\.max_chars: must be a positive integer/],
    [{ kind: 'refusal' }, /check\.should_refuse: required/],
    [{ kind: 'normalized', expected: [] }, /check\.expected: needs at least one expected answer/],
    [{ kind: 'contains', expected: [''] }, /check\.expected: needs at least one non-empty string/],
    [{ kind: 'closed_book', expected: [] }, /check\.expected: an answerable closed_book question needs at least one reference answer/],
    [{ kind: 'citation', documents: [] }, /check\.documents: needs at least one document/],
    [{ kind: 'citation', documents: ['a', 'b'], required: [3] }, /check\.required: document 3 does not exist \(documents are numbered 1–2\)/],
  ])('%j', (raw, pattern) => {
    const m = message(raw);
    expect(m).toMatch(pattern);
    expect(m).not.toContain('\n');
  });
});

describe('parseCheck: valid checks', () => {
  it('normalizes and keeps only declared fields', () => {
    expect(parseCheck({ kind: 'choice', expected: ' b ' }, where)).toEqual({ kind: 'choice', expected: 'B' });
    expect(parseCheck({ kind: 'numeric', expected: '1,250', tolerance: 0.5 }, where)).toEqual({ kind: 'numeric', expected: 1250, tolerance: 0.5 });
    expect(parseCheck({ kind: 'contains', expected: 'x' }, where)).toEqual({ kind: 'contains', expected: ['x'] });
    expect(parseCheck({ kind: 'closed_book', answerable: false }, where)).toEqual({ kind: 'closed_book', expected: [], answerable: false });
    expect(parseCheck({ kind: 'closed_book', expected: 'Canberra' }, where)).toEqual({ kind: 'closed_book', expected: ['Canberra'], answerable: true });
    expect(parseCheck({ kind: 'code', tests: 'assert.ok(f())', entry: 'f' }, where)).toEqual({ kind: 'code', language: 'javascript', tests: 'assert.ok(f())', entry: 'f' });
    expect(parseCheck({ kind: 'json', schema: { type: 'object' } }, where)).toEqual({ kind: 'json', schema: { type: 'object' } });
    expect(parseCheck({ kind: 'regex', pattern: '^\\d+$', flags: 'm' }, where)).toEqual({ kind: 'regex', pattern: '^\\d+$', flags: 'm' });
  });
});
