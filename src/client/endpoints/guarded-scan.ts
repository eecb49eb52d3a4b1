/**
 * A plugin's stream scanner behind a guard: a scanner that throws must cost its request, not the
 * load thread (the read handler would throw out of the socket's callback). The first error stops
 * the scanner and is reported as the stream's malformed payload, so the record fails as
 * `malformed_stream` with the plugin's message.
 */
import type { StreamScan, UsageCounts } from '../stream-events.js';

export class GuardedScan implements StreamScan {
  private error: string | null = null;

  constructor(private readonly inner: StreamScan) {}

  private guard(f: () => void): void {
    if (this.error !== null) return;
    try {
      f();
    } catch (err) {
      this.error = `the plugin's scanner threw: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  push(bytes: Uint8Array, nowMs: number): void {
    this.guard(() => this.inner.push(bytes, nowMs));
  }
  end(nowMs: number): void {
    this.guard(() => this.inner.end(nowMs));
  }
  get malformed(): string | null {
    return this.error ?? this.inner.malformed;
  }
  get contentEvents(): number {
    return this.inner.contentEvents;
  }
  contentTimes(): Float64Array {
    return this.inner.contentTimes();
  }
  get reasoningEvents(): number {
    return this.inner.reasoningEvents;
  }
  get firstReasoningMs(): number | null {
    return this.inner.firstReasoningMs;
  }
  get firstAnswerMs(): number | null {
    return this.inner.firstAnswerMs;
  }
  get usage(): UsageCounts | null {
    return this.inner.usage;
  }
  get finishReason(): string | null {
    return this.inner.finishReason;
  }
  get sawDone(): boolean {
    return this.inner.sawDone;
  }
  get eventsAfterDone(): number {
    return this.inner.eventsAfterDone;
  }
  get errorMessage(): string | null {
    return this.inner.errorMessage;
  }
  get text(): string | null {
    return this.inner.text;
  }
}
