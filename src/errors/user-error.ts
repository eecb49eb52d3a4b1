/**
 * A mistake the user can fix (a flag, a config field, a dataset line, an unreachable URL).
 * The CLI prints `message` as one line and exits with code 2 — no stack trace.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(message: string) {
    super(message);
  }
}

