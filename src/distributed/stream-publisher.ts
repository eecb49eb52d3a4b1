/**
 * A worker's publishing to the JetStream stream: records, dispatch lateness and "done", each with
 * its idempotent message id, so a retried publish is stored once and the coordinator counts each
 * record once.
 */
import type { NatsLink } from './nats-link.js';

/** Records being stored at once: enough to keep up with thousands a second over one connection. */
const MAX_IN_FLIGHT = 256;
const PUBLISH_TRIES = 5;

/**
 * Publishes to JetStream with at most MAX_IN_FLIGHT waiting for their acknowledgement. A publish
 * whose acknowledgement is lost is retried with the same message id, which JetStream stores once.
 */
export class StreamPublisher {
  private readonly queue: Array<{ subject: string; data: Uint8Array; id: string }> = [];
  private inFlight = 0;
  private failure: Error | null = null;
  private idle: Array<() => void> = [];

  constructor(private readonly link: NatsLink) {}

  publish(subject: string, data: Uint8Array, id: string): void {
    this.queue.push({ subject, data, id });
    this.pump();
  }

  async once(subject: string, data: Uint8Array, id: string): Promise<void> {
    this.publish(subject, data, id);
    await this.drain();
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const m = this.queue.shift()!;
      this.inFlight++;
      void this.send(m).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0) for (const r of this.idle.splice(0)) r();
      });
    }
  }

  private async send(m: { subject: string; data: Uint8Array; id: string }): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.link.publish(m.subject, m.data, m.id);
        return;
      } catch (err) {
        if (attempt >= PUBLISH_TRIES) {
          this.failure ??= new Error(`JetStream did not store ${m.id} after ${PUBLISH_TRIES} tries: ${(err as Error).message}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  async drain(): Promise<void> {
    if (this.inFlight > 0 || this.queue.length > 0) await new Promise<void>((r) => this.idle.push(r));
    if (this.failure) throw this.failure;
  }
}
