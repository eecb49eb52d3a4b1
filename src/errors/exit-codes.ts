/**
 * The exit-code table: the one place that says what each process exit status means, so a CI job
 * can gate on it. README §Exit codes and every command's --help repeat this table; a test checks
 * that they agree.
 */
export const EXIT_CODES = {
  /** Done: the run was valid and every gate that was asked for passed. */
  OK: 0,
  /** Unexpected internal error (a bug): one line, the trace with --debug. */
  INTERNAL: 1,
  /** Bad input: a flag, the config file, a dataset, an unreachable or unusable server. */
  USAGE: 2,
  /** One or more SLOs failed (run/sweep with --slo, or --goodput gates). */
  SLO_FAILED: 3,
  /** `compare` found a significant regression beyond its thresholds (`--fail-on-regression`). */
  REGRESSION: 4,
  /** The run is invalid: no request succeeded, the failure rate exceeded its limit, or the client could not keep its schedule; for `compare` and `trend`, a run they were given is. `--allow-invalid` turns this into 0. */
  INVALID_RUN: 5,
  /** The results folder failed mid-run (full, read-only, over quota): the run was measured and reported on stdout, its records only partly saved. */
  DISK_FAULT: 6,
  /** Interrupted by SIGINT (128 + 2); what was measured was still written. */
  SIGINT: 130,
  /** Stopped by SIGHUP (128 + 1). */
  SIGHUP: 129,
  /** Stopped by SIGTERM (128 + 15). */
  SIGTERM: 143,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The code of a process stopped through an AbortSignal: its reason names the signal (a bare abort counts as Ctrl-C). */
export function stopSignalCode(reason: unknown): ExitCode {
  if (reason === 'SIGTERM') return EXIT_CODES.SIGTERM;
  if (reason === 'SIGHUP') return EXIT_CODES.SIGHUP;
  return EXIT_CODES.SIGINT;
}

/** What a measuring command (run, sim run, sweep, analyze, plan, sweep --search) ended with. */
export interface Outcome {
  /** Stopped by a signal: the abort reason of the command's signal (`'SIGTERM'`, …); null when not stopped. */
  stoppedBy: { reason: unknown } | null;
  /** The validity verdict: false when some measurement (a run, a stage) is invalid; null when not judged. */
  valid: boolean | null;
  /** --allow-invalid: an invalid measurement is accepted (reported, not failed). */
  allowInvalid: boolean;
  /** Every gate asked for (--slo, a search's answer) passed; null when none was asked. */
  gatesPass: boolean | null;
}

/**
 * The one mapping from outcome to exit code, in this order: a stop signal (128 + its number),
 * an invalid measurement (5, unless --allow-invalid), a failed gate (3), else 0.
 */
export function exitCodeFor(o: Outcome): ExitCode {
  if (o.stoppedBy) return stopSignalCode(o.stoppedBy.reason);
  if (o.valid === false && !o.allowInvalid) return EXIT_CODES.INVALID_RUN;
  if (o.gatesPass === false) return EXIT_CODES.SLO_FAILED;
  return EXIT_CODES.OK;
}

/**
 * `compare`'s code: an invalid run it refused (5), else a significant regression beyond its
 * thresholds (4), else 0.
 */
export function compareExitCode(o: { refusedInvalid: boolean; regressed: boolean }): ExitCode {
  if (o.refusedInvalid) return EXIT_CODES.INVALID_RUN;
  if (o.regressed) return EXIT_CODES.REGRESSION;
  return EXIT_CODES.OK;
}

/**
 * Several measurements as one outcome (repeated runs): stopped if any was, invalid if any was
 * (unless every invalid one was accepted), a gate failed if any failed — so exitCodeFor gives the
 * worst of them in its own order.
 */
export function combineOutcomes(outcomes: readonly Outcome[]): Outcome {
  const stopped = outcomes.find((o) => o.stoppedBy)?.stoppedBy ?? null;
  const invalid = outcomes.filter((o) => o.valid === false);
  const gates = outcomes.map((o) => o.gatesPass).filter((g): g is boolean => g !== null);
  return {
    stoppedBy: stopped,
    valid: invalid.length > 0 ? false : outcomes.some((o) => o.valid === true) ? true : null,
    allowInvalid: invalid.length > 0 && invalid.every((o) => o.allowInvalid),
    gatesPass: gates.length === 0 ? null : gates.every(Boolean),
  };
}

/** The table as printed in --help and README (kept in sync by test/cli/exit-codes.test.ts). */
export const EXIT_CODE_HELP = `Exit codes:
  0    done: a valid run, every requested gate passed
  1    internal error (rerun with --debug for the trace)
  2    bad input: a flag, the config file, a dataset, an unreachable or unusable server
  3    an SLO failed
  4    compare: a significant regression beyond --fail-on-regression
  5    invalid run: no request succeeded, failures above --max-failure-rate, or the client fell behind;
       also a sweep with an invalid stage, and plan --from / sweep --search given invalid measurements, compare and trend given an invalid run (--allow-invalid: accepted)
  6    the results folder failed mid-run (full, read-only): figures printed, records only partly saved
  129, 130, 143  stopped by SIGHUP, SIGINT (Ctrl-C), SIGTERM: what was measured is still saved`;
