/** Building `CheckOutcome`s: one place for the pass/outcome pairing of the common cases. */
import type { CheckOutcome, OutcomeClass } from './check-types.js';

export function correct(reason: string): CheckOutcome {
  return { pass: true, outcome: 'correct', reason };
}

export function wrong(reason: string, outcome: OutcomeClass = 'wrong'): CheckOutcome {
  return { pass: false, outcome, reason };
}

/** Pass when `ok`, with the same reason either way (e.g. `12 chars ≤ 100`). */
export function verdict(ok: boolean, reason: string): CheckOutcome {
  return ok ? correct(reason) : wrong(reason);
}
