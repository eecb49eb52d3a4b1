/**
 * The process entry (bin/infermeter.js runs the compiled one; tests spawn this file with tsx):
 * runs `main` with the real stdout, stderr and environment and sets the exit code. It owns
 * what only a process has: a reader that went away, errors nothing else caught, and exiting
 * promptly after a stop signal.
 */
import { EXIT_CODES } from '../errors/exit-codes.js';
import { debugRequested, reportInternalError } from './internal-error.js';
import { main } from './main.js';

const argv = process.argv.slice(2);

/**
 * A reader that closed the pipe (`infermeter run --help | head`) is not an error: like other
 * Unix tools, stop writing there quietly; the command still finishes and saves its results.
 */
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}

/** Anything that escaped every handler: one line (the trace with --debug), exit 1. */
function crash(err: unknown): void {
  try {
    process.stderr.write(reportInternalError(err, debugRequested(argv)));
  } finally {
    process.exit(EXIT_CODES.INTERNAL);
  }
}
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const SIGNAL_CODES: ReadonlySet<number> = new Set([EXIT_CODES.SIGINT, EXIT_CODES.SIGTERM, EXIT_CODES.SIGHUP]);

main(argv).then((code) => {
  // After a stop signal everything measured is saved: leave now rather than wait for a
  // pre-flight or a connection that may take its full timeout to give up.
  if (SIGNAL_CODES.has(code)) process.exit(code);
  process.exitCode = code;
}, crash);
