/**
 * Retrying pre-flight's requests through transient faults (a 429, a 5xx, a reset or a stall),
 * with exponential backoff that honours Retry-After, inside a stated bound:
 * at most `attempts` tries, waits of base·2^k ms (or the server's Retry-After, at most
 * `maxDelayMs`), and never more than `totalWaitMs` of waiting in all. The load itself is never
 * retried: a failed request there is a measurement.
 */

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  totalWaitMs: number;
}

/** 4 tries; waits 0.5, 1, 2 s (or Retry-After up to 10 s); at most 15 s of waiting per step. */
export const PREFLIGHT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 10_000, totalWaitMs: 15_000 };

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One try's outcome: a value, or what went wrong and whether trying again may help. */
export type Attempt<T> = { ok: true; value: T } | { ok: false; seen: string; transient: boolean; retryAfterMs?: number | null; error: () => Error };

export interface RetryLog {
  /** What each failed try saw, in order. */
  seen: string[];
  waitedMs: number;
}

/**
 * Runs `once` until it succeeds, fails for good, or the policy's bound is reached; then throws
 * the last try's error, whose message may include `log.seen` (the caller formats it).
 */
export async function withRetries<T>(once: () => Promise<Attempt<T>>, policy: RetryPolicy, sleep: Sleep, onRetry?: (seen: string, waitMs: number, tryNo: number) => void): Promise<{ value: T; log: RetryLog } | { failed: Attempt<T> & { ok: false }; log: RetryLog }> {
  const log: RetryLog = { seen: [], waitedMs: 0 };
  for (let tryNo = 1; ; tryNo++) {
    const a = await once();
    if (a.ok) return { value: a.value, log };
    log.seen.push(a.seen);
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (tryNo - 1));
    const wait = a.retryAfterMs != null ? Math.min(policy.maxDelayMs, Math.max(0, a.retryAfterMs)) : backoff;
    if (!a.transient || tryNo >= policy.attempts || log.waitedMs + wait > policy.totalWaitMs) return { failed: a, log };
    onRetry?.(a.seen, wait, tryNo);
    await sleep(wait);
    log.waitedMs += wait;
  }
}

/** HTTP statuses worth another try: request timeout, too early, rate limited, server errors but 501. */
export function transientStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/** Network errors worth another try (a refused connection is not: nothing listens there). */
export function transientNetworkError(code: string | undefined): boolean {
  return code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE' || code === 'ECONNABORTED' || code === 'EAI_AGAIN' || code === 'UND_ERR_SOCKET';
}
