/**
 * The process's open-file limit (RLIMIT_NOFILE), and the errors that say it ran out. Node raises its
 * soft limit to the hard one at start and has no setrlimit binding beyond that, so a run that needs
 * more descriptors is refused before t = 0 with the shell command that raises it
 * (session/run-bounds.ts checkFdBound).
 */
import { readFileSync } from 'node:fs';

export interface FdLimits {
  /** The soft limit: what open() and connect() meet (EMFILE past it). */
  soft: number;
  /** The hard limit: how far `ulimit -n` may raise the soft one without privileges (Infinity: unlimited). */
  hard: number;
}

const limitValue = (s: string): number => (s === 'unlimited' ? Infinity : Number(s));

/** The "Max open files" row of a /proc/PID/limits text; null when it has none. */
export function parseFdLimits(text: string): FdLimits | null {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  const soft = limitValue(m[1]!);
  const hard = limitValue(m[2]!);
  return { soft, hard };
}

/** This process's limits: Linux's /proc/self/limits; null elsewhere (not checked there). */
export function fdLimits(): FdLimits | null {
  if (process.platform !== 'linux') return null;
  try {
    return parseFdLimits(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}

/** The process (EMFILE) or the whole system (ENFILE) has no descriptor left: the client's limit, not the server's fault. */
export function isFdExhaustion(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

/** "the open-file limit (soft 256, hard 4096; raise it with `ulimit -n N` before the run)", for messages. */
export function fdLimitPhrase(limits: FdLimits | null = fdLimits()): string {
  const hard = limits === null ? '' : `, hard ${limits.hard === Infinity ? 'unlimited' : limits.hard}`;
  return limits === null
    ? "the client's open-file limit (raise it with `ulimit -n N` before the run)"
    : `the client's open-file limit (soft ${limits.soft}${hard}; raise it with \`ulimit -n N\` before the run)`;
}
