/**
 * One zod issue as one line a user can act on: the field's path and the form it expects. zod's
 * own messages for unions ("Invalid input"), record keys ("Invalid key in record") and missing
 * fields ("expected string, received undefined") name neither what was wrong nor what would do;
 * every schema error the CLI prints goes through here (load-spec.ts, prices.ts, SLO files).
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export interface IssueLine {
  /** Dotted path of the field ('' at the top level). */
  path: string;
  message: string;
}

/** The issue's path and message, unions and record keys resolved to the part that failed. */
export function describeIssue(issue: Issue): IssueLine {
  const { path, message } = resolve(issue, []);
  return { path: path.map(String).join('.'), message };
}

/** `path: message`, or the message alone at the top level. */
export function issueText(issue: Issue): string {
  const d = describeIssue(issue);
  return d.path === '' ? d.message : `${d.path}: ${d.message}`;
}

function resolve(issue: Issue, prefix: readonly PropertyKey[]): { path: PropertyKey[]; message: string } {
  const path = [...prefix, ...issue.path];
  switch (issue.code) {
    case 'invalid_union': {
      const branches = issue.errors.filter((b) => b.length > 0);
      // Every branch failed on the value's type: list the forms that would do.
      if (branches.length > 0 && branches.every((b) => b[0]!.code === 'invalid_type' && b[0]!.path.length === 0)) {
        const expected = [...new Set(branches.map((b) => (b[0] as Extract<Issue, { code: 'invalid_type' }>).expected))];
        return { path, message: typeMessage(expected.join(' or '), branches[0]![0]!.message) };
      }
      // Else the branch that got furthest into the value says what is wrong with it.
      const deepest = branches.reduce<Issue[] | null>((best, b) => (best === null || b[0]!.path.length > best[0]!.path.length ? b : best), null);
      return deepest === null ? { path, message: 'matches none of the accepted forms' } : resolve(deepest[0]!, path);
    }
    case 'invalid_key': {
      const inner = issue.issues[0];
      const key = path[path.length - 1];
      return { path: path.slice(0, -1), message: `key ${JSON.stringify(String(key))}: ${inner ? resolve(inner, []).message : 'not an accepted key'}` };
    }
    case 'invalid_element': {
      const inner = issue.issues[0];
      return inner ? resolve(inner, path) : { path, message: issue.message };
    }
    case 'invalid_type':
      return { path, message: typeMessage(issue.expected, issue.message) };
    case 'invalid_value':
      return { path, message: issue.values.length === 1 ? `expected ${JSON.stringify(issue.values[0])}` : `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` };
    case 'unrecognized_keys':
      return { path, message: `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` };
    default:
      return { path, message: issue.message };
  }
}

/** A missing field says it is required; a wrong type says what it is and what was expected. */
function typeMessage(expected: string, zodMessage: string): string {
  const received = /received (\w+)/.exec(zodMessage)?.[1];
  if (received === 'undefined') return `required field is missing (expected ${article(expected)})`;
  return `expected ${article(expected)}${received ? `, got ${article(received)}` : ''}`;
}

function article(type: string): string {
  if (type.includes(' or ')) return type.split(' or ').map(article).join(' or ');
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
