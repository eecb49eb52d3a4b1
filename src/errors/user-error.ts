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

export const EXIT_USER_ERROR = 2;
/** Interrupted by Ctrl-C (128 + SIGINT): the figures of what was measured were still written. */
export const EXIT_INTERRUPTED = 130;
