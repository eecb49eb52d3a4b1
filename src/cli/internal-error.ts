/**
 * What a user sees of an unexpected error (a bug, or something the code did not foresee): one
 * line naming it and how to get the trace, never a stack trace unless --debug asked for one.
 */

/** The one line: the error's first line, then the hint. */
export function internalErrorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const first = message.split('\n')[0]!.trim() || (err instanceof Error ? err.name : 'unknown error');
  return `error: internal error: ${first} (rerun with --debug for the trace)`;
}

/** The report for stderr: the line, plus the stack with --debug. */
export function reportInternalError(err: unknown, debug: boolean): string {
  if (!debug) return `${internalErrorLine(err)}\n`;
  const trace = err instanceof Error && err.stack ? err.stack : String(err);
  return `error: internal error (--debug):\n${trace}\n`;
}

/** --debug anywhere on the command line (it must work even when parsing itself failed). */
export function debugRequested(argv: readonly string[]): boolean {
  return argv.includes('--debug');
}
