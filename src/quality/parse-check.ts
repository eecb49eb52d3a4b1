/**
 * Reading a declared check (a dataset entry's `check` field, docs/quality.md §Dataset fields) into a
 * `QualityCheck`. Everything that would make the check impossible to evaluate is rejected here, with
 * one line naming where it came from (`data.jsonl:17: check.pattern: invalid regex ...`), so a run
 * stops with exit 2 before any load is sent instead of grading answers against a broken check.
 */
import { UserError } from '../errors/user-error.js';
import { CHECK_KINDS, type CheckKind, type QualityCheck } from './check-types.js';
import { schemaValidator } from './json-schema.js';

type Raw = Record<string, unknown>;

/** Parse `raw` (an object with `kind`) into a check; `where` prefixes every error (`file:line`). */
export function parseCheck(raw: unknown, where: string): QualityCheck {
  const fail = (field: string, problem: string): never => {
    throw new UserError(`${where}: check${field === '' ? '' : `.${field}`}: ${problem}`);
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('', 'must be an object with a "kind"');
  const r = raw as Raw;
  const kind = r['kind'];
  if (typeof kind !== 'string' || !(CHECK_KINDS as readonly string[]).includes(kind)) {
    fail('kind', `${JSON.stringify(kind)} is not a check kind (one of ${CHECK_KINDS.join(', ')})`);
  }
  const f = fields(r, fail);
  switch (kind as CheckKind) {
    case 'exact':
      return { kind: 'exact', expected: f.str('expected') };
    case 'normalized': {
      const e = r['expected'];
      const expected = Array.isArray(e) ? f.strList('expected') : f.str('expected');
      if (Array.isArray(expected) && expected.length === 0) fail('expected', 'needs at least one expected answer');
      return { kind: 'normalized', expected };
    }
    case 'regex': {
      const pattern = f.str('pattern');
      const flags = f.optStr('flags');
      try {
        new RegExp(pattern, flags);
      } catch (err) {
        fail(flags !== undefined && /flag/i.test(String(err)) ? 'flags' : 'pattern', `invalid regex: ${(err as Error).message}`);
      }
      return flags === undefined ? { kind: 'regex', pattern } : { kind: 'regex', pattern, flags };
    }
    case 'contains': {
      const e = r['expected'];
      const expected = typeof e === 'string' ? [e] : f.strList('expected');
      if (expected.length === 0 || expected.some((x) => x === '')) fail('expected', 'needs at least one non-empty string');
      const any = f.optBool('any');
      return any === undefined ? { kind: 'contains', expected } : { kind: 'contains', expected, any };
    }
    case 'choice': {
      const choices = r['choices'] === undefined ? undefined : f.strList('choices');
      const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.slice(0, choices?.length ?? 26);
      const expected = f.str('expected').trim().toUpperCase();
      if (!/^[A-Z]$/.test(expected) || !letters.includes(expected)) fail('expected', `must be one letter among ${letters[0]}–${letters.at(-1)}, got ${JSON.stringify(r['expected'])}`);
      return choices === undefined ? { kind: 'choice', expected } : { kind: 'choice', expected, choices };
    }
    case 'numeric': {
      const e = r['expected'];
      const expected = typeof e === 'string' && e.trim() !== '' && Number.isFinite(Number(e.replace(/,/g, ''))) ? Number(e.replace(/,/g, '')) : f.num('expected');
      const tolerance = f.optNum('tolerance', 0);
      const relative = f.optNum('relative', 0);
      return { kind: 'numeric', expected, ...(tolerance === undefined ? {} : { tolerance }), ...(relative === undefined ? {} : { relative }) };
    }
    case 'json': {
      const schema = r['schema'];
      if (schema === undefined) return { kind: 'json' };
      if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) fail('schema', 'must be a JSON-Schema object');
      try {
        schemaValidator(schema as Record<string, unknown>);
      } catch (err) {
        fail('schema', `invalid JSON schema: ${(err as Error).message.split('\n')[0]}`);
      }
      return { kind: 'json', schema: schema as Record<string, unknown> };
    }
    case 'max_length': {
      const max_chars = f.optInt('max_chars');
      const max_words = f.optInt('max_words');
      if (max_chars === undefined && max_words === undefined) fail('', 'max_length needs max_chars or max_words');
      return { kind: 'max_length', ...(max_chars === undefined ? {} : { max_chars }), ...(max_words === undefined ? {} : { max_words }) };
    }
    case 'refusal': {
      const should = f.optBool('should_refuse');
      if (should === undefined) fail('should_refuse', 'required (true or false)');
      return { kind: 'refusal', should_refuse: should! };
    }
    case 'closed_book': {
      const answerable = f.optBool('answerable') ?? true;
      const e = r['expected'];
      const expected = e === undefined ? [] : typeof e === 'string' ? [e] : f.strList('expected');
      if (answerable && expected.length === 0) fail('expected', 'an answerable closed_book question needs at least one reference answer');
      return { kind: 'closed_book', expected, answerable };
    }
    case 'code': {
      const language = r['language'] ?? 'javascript';
      if (language !== 'javascript') fail('language', `only "javascript" code is run, got ${JSON.stringify(language)}`);
      if (r['tests'] === undefined || (typeof r['tests'] === 'string' && r['tests'].trim() === '')) fail('tests', 'a code check needs tests (JavaScript statements using assert)');
      const tests = f.str('tests');
      const entry = f.optStr('entry');
      if (entry !== undefined && !/^[A-Za-z_$][\w$]*$/.test(entry)) fail('entry', `must be a JavaScript identifier, got ${JSON.stringify(entry)}`);
      const timeout_ms = f.optInt('timeout_ms');
      return { kind: 'code', language: 'javascript', tests, ...(entry === undefined ? {} : { entry }), ...(timeout_ms === undefined ? {} : { timeout_ms }) };
    }
    case 'citation': {
      const documents = f.strList('documents');
      if (documents.length === 0) fail('documents', 'needs at least one document');
      const required = r['required'] === undefined ? undefined : f.intList('required');
      for (const n of required ?? []) if (n < 1 || n > documents.length) fail('required', `document ${n} does not exist (documents are numbered 1–${documents.length})`);
      const min = f.optInt('min_span_words');
      return { kind: 'citation', documents, ...(required === undefined ? {} : { required }), ...(min === undefined ? {} : { min_span_words: min }) };
    }
  }
  return fail('kind', 'unhandled');
}

/** Typed field readers that fail with the field's name. */
function fields(r: Raw, fail: (field: string, problem: string) => never) {
  const str = (k: string): string => (typeof r[k] === 'string' ? (r[k] as string) : fail(k, `must be a string, got ${JSON.stringify(r[k]) ?? 'nothing'}`));
  const strList = (k: string): string[] => {
    const v = r[k];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(k, 'must be a list of strings');
    return v as string[];
  };
  const num = (k: string): number => (typeof r[k] === 'number' && Number.isFinite(r[k]) ? (r[k] as number) : fail(k, `must be a number, got ${JSON.stringify(r[k]) ?? 'nothing'}`));
  return {
    str,
    strList,
    num,
    optStr: (k: string): string | undefined => (r[k] === undefined ? undefined : str(k)),
    optBool: (k: string): boolean | undefined => (r[k] === undefined ? undefined : typeof r[k] === 'boolean' ? (r[k] as boolean) : fail(k, 'must be true or false')),
    optNum: (k: string, min: number): number | undefined => {
      if (r[k] === undefined) return undefined;
      const v = num(k);
      return v >= min ? v : fail(k, `must be ≥ ${min}`);
    },
    optInt: (k: string): number | undefined => {
      if (r[k] === undefined) return undefined;
      const v = num(k);
      return Number.isInteger(v) && v >= 1 ? v : fail(k, 'must be a positive integer');
    },
    intList: (k: string): number[] => {
      const v = r[k];
      if (!Array.isArray(v) || v.some((x) => !Number.isInteger(x))) fail(k, 'must be a list of document numbers');
      return v as number[];
    },
  };
}
