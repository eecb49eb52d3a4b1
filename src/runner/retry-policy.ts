/**
 * --retries: which failed attempts are sent again, and when. Only failures before any output
 * (rate limits, server errors, refused connections) are retried, so a retry never repeats a
 * stream the user already saw part of. The wait is the server's Retry-After when it gave one,
 * else exponential backoff; both are capped. No jitter: the schedule stays reproducible.
 */
import type { ErrorClass, RequestRecord } from '../record/record.js';

export interface RetryPolicy {
  /** Retries per request after its first attempt (0: none). */
  retries: number;
  /** Backoff before retry k (0-based): baseMs × 2^k, at most maxMs. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY_BACKOFF = { baseMs: 500, maxMs: 30_000 } as const;

const RETRYABLE: ReadonlySet<ErrorClass> = new Set<ErrorClass>(['http_429', 'http_5xx', 'connect']);

export function shouldRetry(r: RequestRecord, p: RetryPolicy): boolean {
  return r.status === 'error' && r.error_class !== null && RETRYABLE.has(r.error_class) && r.first_token_ms === null && (r.attempt ?? 0) < p.retries;
}

/** How long to wait before the next attempt of `r` (ms). */
export function retryDelayMs(r: RequestRecord, p: RetryPolicy): number {
  const backoff = Math.min(p.maxMs, p.baseMs * 2 ** (r.attempt ?? 0));
  return r.retry_after_ms !== undefined ? Math.min(p.maxMs, r.retry_after_ms) : backoff;
}
