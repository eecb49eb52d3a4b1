/** The CLI's side of a session: log lines and the progress panel on stderr, the stop signals. */
import { createProgressDisplay, resolveProgressMode } from '../report/progress-display.js';
import type { SessionContext } from '../session/context.js';
import type { CliIo } from './io.js';

export function sessionContext(io: CliIo, progress: 'auto' | 'bar' | 'lines' | 'none'): SessionContext {
  const mode = resolveProgressMode(progress, io.stderr);
  return {
    env: io.env,
    ...(io.proxy !== undefined ? { proxy: io.proxy } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
    log: (line) => io.stderr.write(`${line}\n`),
    // --progress none: no view at all (a virtual-time run then skips its per-step bookkeeping).
    ...(mode === 'none' ? {} : { progress: (opts) => createProgressDisplay(mode, io.stderr, opts), redrawEveryMs: mode === 'lines' ? 1000 : 250 }),
  };
}
