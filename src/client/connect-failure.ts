/**
 * How a request whose connection closed before any response byte is classified: `connect` (the
 * server could not be reached: refused, unreachable, reset) — unless the client itself had no
 * descriptor left for the socket (EMFILE, ENFILE), which is `client_limit`: the client's own
 * limit, never blamed on the server (not an outage, metrics/defs/availability.ts).
 */
import type { ErrorClass } from '../record/record.js';
import { fdLimitPhrase, fdLimits, isFdExhaustion, type FdLimits } from '../util/fd-limit.js';

export interface ConnectFailure {
  errorClass: Extract<ErrorClass, 'connect' | 'client_limit'>;
  message: string;
}

/** `err`: the socket's error (null: closed without one). `limits` is given by tests. */
export function connectFailure(err: NodeJS.ErrnoException | null | undefined, limits: () => FdLimits | null = fdLimits): ConnectFailure {
  if (isFdExhaustion(err)) {
    const whose = err!.code === 'ENFILE' ? "the system's open-file table is full" : `no open file left in this process: ${fdLimitPhrase(limits())}`;
    return { errorClass: 'client_limit', message: `${err!.code}: ${whose}` };
  }
  return { errorClass: 'connect', message: `${err?.code ?? 'closed'}: ${err?.message ?? 'connection closed before any response'}` };
}
