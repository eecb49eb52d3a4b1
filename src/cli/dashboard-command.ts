/** `infermeter dashboard`: serves the results folder's history until Ctrl-C. */
import { startDashboard } from '../dashboard/serve.js';
import { renderReport } from '../report/render-report.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import type { CliIo } from './io.js';
import { setHistoryWarningSink } from '../history/history-db.js';
import { statSync } from 'node:fs';
import { unwritableDirReason } from '../util/writable-path.js';

/** A mistyped folder would serve an empty history until Ctrl-C: refused before anything listens. */
function refuseMissingFolder(dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing or unreadable: said below
  }
  if (!isDir) throw new UserError(`--result-dir ${dir}: no such folder (give the folder that holds the run directories and history.duckdb)`);
}

export async function dashboardCommand(opts: { resultsDir: string; port: string }, io: CliIo): Promise<number> {
  setHistoryWarningSink((line) => io.stderr.write(line));
  refuseMissingFolder(opts.resultsDir);
  // A read-only folder is served as it is (the history read, never folded or repaired): said once, up front.
  const readOnly = unwritableDirReason(opts.resultsDir);
  if (readOnly) io.stderr.write(`infermeter dashboard: serving ${opts.resultsDir}/ read-only: the history journal there is not writable (${readOnly}); runs, reports and history are shown as they are\n`);
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port ${opts.port}: give a port number (0–65535; 0 picks a free one)`);
  let dash;
  try {
    dash = await startDashboard({ resultsDir: opts.resultsDir, port, renderReport: (dir) => renderReport(dir) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`--port ${port}: cannot listen on 127.0.0.1 (${code ?? String(err)})${code === 'EADDRINUSE' ? '; pick another with --port' : ''}`);
  }
  io.stderr.write(`infermeter dashboard: ${dash.url}/ (results folder ${opts.resultsDir}/; Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    if (!io.signal || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await dash.close();
  return EXIT_CODES.OK;
}
