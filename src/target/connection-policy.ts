/**
 * Connection reuse that costs nothing on servers that misbehave about keep-alive.
 *
 * llama.cpp's server advertises `Connection: keep-alive` yet closes the socket after every
 * streamed response. A pooled socket can then be handed to the next request in the instant
 * between the response's end and the FIN's arrival; the write fails with ECONNRESET/EPIPE.
 * Two defences:
 *  1. a request whose *reused* socket fails before any response byte is retried once on a
 *     fresh connection (the server cannot have seen it: it had closed that socket);
 *  2. once several sockets have been closed by the server right after their first response
 *     and none has ever served two, stop pooling: each request opens its own connection and
 *     says `Connection: close`, so no request ever meets a dead socket.
 */
import type { Socket } from 'node:net';

const ONE_SHOT_CLOSES_TO_STOP_POOLING = 4;
const RETRYABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export class ConnectionPolicy {
  private oneShotCloses = 0;
  private multiUseSockets = 0;
  private readonly served = new WeakMap<Socket, number>();
  private pooling = true;
  /** Requests retried after meeting a socket the server had closed. */
  staleRetries = 0;

  get poolConnections(): boolean {
    return this.pooling;
  }

  /** Call when a response completed on `socket`. */
  responseDone(socket: Socket | null): void {
    if (!socket) return;
    const n = this.served.get(socket);
    if (n === undefined) {
      this.served.set(socket, 1);
      socket.once('close', () => this.socketClosed(socket));
    } else {
      this.served.set(socket, n + 1);
      if (n === 1) this.multiUseSockets++;
    }
  }

  private socketClosed(socket: Socket): void {
    if (this.served.get(socket) === 1) this.oneShotCloses++;
    if (this.pooling && this.multiUseSockets === 0 && this.oneShotCloses >= ONE_SHOT_CLOSES_TO_STOP_POOLING) {
      this.pooling = false;
    }
  }

  /** Whether a failed attempt should be retried on a fresh connection. */
  shouldRetry(reusedSocket: boolean, gotResponse: boolean, err: NodeJS.ErrnoException, attempt: number): boolean {
    return attempt === 0 && reusedSocket && !gotResponse && RETRYABLE_CODES.has(err.code ?? '');
  }
}
