/**
 * The `check` field of a dataset entry (docs/quality.md §Dataset fields). A check that cannot be
 * evaluated is bad input: parseCheck throws a UserError naming `file:line` (exit 2, before any load
 * is sent), unlike a malformed line, which is skipped and counted.
 *
 *   {"prompt": "...", "expected": "42", "check": {"kind": "numeric", "tolerance": 0.5}}
 *   {"prompt": "...", "expected": "Paris", "check": "normalized"}      (a kind name alone)
 *
 * The entry's own `expected` fills in the check's when the check has none.
 */
import { parseCheck } from '../../quality/parse-check.js';
import type { QualityCheck } from '../../quality/check-types.js';

const USES_EXPECTED = new Set(['exact', 'normalized', 'contains', 'choice', 'numeric', 'closed_book']);

/** The entry's check, or undefined when it declares none. */
export function entryCheck(o: Record<string, unknown>, where: string): QualityCheck | undefined {
  const raw = o['check'];
  if (raw === undefined || raw === null) return undefined;
  const declared: unknown = typeof raw === 'string' ? { kind: raw } : raw;
  if (typeof declared === 'object' && declared !== null && !Array.isArray(declared)) {
    const c = declared as Record<string, unknown>;
    if (c['expected'] === undefined && o['expected'] !== undefined && typeof c['kind'] === 'string' && USES_EXPECTED.has(c['kind'])) {
      return parseCheck({ ...c, expected: o['expected'] }, where);
    }
  }
  return parseCheck(declared, where);
}

/** The known-correct answer text of an entry (`reference`, else a string `expected`), for a simulator's answer mode. */
export function entryReference(o: Record<string, unknown>): string | null {
  for (const k of ['reference', 'expected', 'answer']) if (typeof o[k] === 'string') return o[k] as string;
  return null;
}
