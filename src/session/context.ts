/**
 * What a session (a run, a sweep, a plan's probe) gets from its caller: the environment (API key,
 * PATH for a local Prometheus), cancellation through an AbortSignal, and where its progress goes.
 * A session prints nothing itself; the CLI passes callbacks that draw on stderr.
 */
import type { FdLimits } from '../util/fd-limit.js';
import { Writable } from 'node:stream';
import { createProgressDisplay, type DisplayOptions, type ProgressDisplay } from '../report/progress-display.js';
import { proxySettingsFromEnv, ProxySettingError, type ProxySettings } from '../util/proxy.js';
import { UserError } from '../errors/user-error.js';

/** The live view of one load: records as they finish, the runner's snapshots, and its end. */
export type LoadView = ProgressDisplay;

export interface SessionContext {
  /** --proxy URL (a string) or --no-proxy (false): overrides HTTP(S)_PROXY of `env` (util/proxy.ts). */
  proxy?: string | false;
  /** Where the API key (`target.api_key_env`) and PATH are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Aborting it stops the session: sending stops, requests in flight are cancelled, what was measured is kept and reported. Its reason (e.g. 'SIGTERM') is kept for the exit code. */
  signal?: AbortSignal;
  /** Progress lines (what starts, slow steps, warnings), secrets already removed. Default: dropped. */
  log?: (line: string) => void;
  /** Opens the live view of a load (the CLI's progress panel). Default: none drawn (progress.jsonl is still written). */
  progress?: (opts: DisplayOptions) => Promise<LoadView>;
  /** How often (wall ms) a synchronous driver (virtual time) hands the view a frame: 250 for a panel, 1000 for plain lines. */
  redrawEveryMs?: number;
  /** Bytes free in a folder, for the room check before t = 0 (session/run-bounds.ts); default statfs. Tests give their own. */
  freeSpace?: (dir: string) => number | null;
  /** The open-file limits for the descriptor bound before t = 0 (session/run-bounds.ts); default /proc/self/limits, null: not checked. Tests give their own. */
  fdLimits?: FdLimits | null;
}

const nowhere = new Writable({ write: (_c, _e, done) => done() });

/** The context's view of a load, or one that draws nothing. */
export function openView(ctx: SessionContext, opts: DisplayOptions): Promise<LoadView> {
  return ctx.progress ? ctx.progress(opts) : createProgressDisplay('none', nowhere, opts);
}

export function envOf(ctx: SessionContext): NodeJS.ProcessEnv {
  return ctx.env ?? process.env;
}

/** HTTP(S)_PROXY / NO_PROXY of the context's environment, with --proxy / --no-proxy; a bad proxy URL is one line. */
export function proxyOf(ctx: SessionContext): ProxySettings {
  try {
    return proxySettingsFromEnv(envOf(ctx), ctx.proxy);
  } catch (err) {
    if (err instanceof ProxySettingError) throw new UserError(err.message);
    throw err;
  }
}
