/**
 * Connection reuse that costs nothing on servers that misbehave about keep-alive.
 *
 * llama.cpp's server advertises `Connection: keep-alive` yet closes the socket after every
 * streamed response. A pooled socket can then be handed to the next request in the instant
 * between the response's end and the FIN's arrival; the write meets a closed connection.
 * Two defences:
 *  1. a request whose *reused* connection closes before any response byte is retried once on
 *     a fresh connection (the server cannot have seen it: it had closed that connection);
 *  2. once several connections have been closed by the server right after their first
 *     response and none has ever served two, stop pooling: each request opens its own
 *     connection and says `Connection: close`, so no request ever meets a dead socket.
 */
const ONE_SHOT_CLOSES_TO_STOP_POOLING = 4;

export interface ReuseStats {
  /** Connections closed by the server after exactly one response, before any byte of another. */
  oneShotCloses: number;
  /** Connections that served two responses or more. */
  multiUse: number;
}

export class ConnectionPolicy {
  /** Requests retried after meeting a connection the server had closed. */
  staleRetries = 0;
  private stopped = false;

  /** Whether to keep pooling connections, given what the pool has seen so far. */
  pooling(stats: ReuseStats): boolean {
    if (!this.stopped && stats.multiUse === 0 && stats.oneShotCloses >= ONE_SHOT_CLOSES_TO_STOP_POOLING) this.stopped = true;
    return !this.stopped;
  }
}
