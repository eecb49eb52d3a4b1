/**
 * Server-side ground truth per request: when it arrived, was admitted, and emitted each token,
 * so tests and benchmarks can measure a client's own timing error. Times are ms of this
 * process's performance.now(); `time_origin_ms` (performance.timeOrigin, epoch ms) converts
 * them to wall-clock time: epoch = time_origin_ms + t.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';

export interface GroundTruthEntry {
  id: number;
  time_origin_ms: number;
  arrival_ms: number;
  /** First step that scheduled it (fixed timing: the arrival); null if never admitted. */
  admitted_ms: number | null;
  /** When each token was due: the step's end (engine timing) or its scheduled time (fixed timing). */
  token_ms: number[];
  /**
   * When each token's bytes were handed to the socket (≥ token_ms; tokens written together share
   * one time). A client's own timing error is its arrival time minus this. Shorter than token_ms
   * when a fault cut the stream before the last token was written.
   */
  written_ms: number[];
  end_ms: number | null;
  /** False when the client went away or a fault cut the stream. */
  completed: boolean;
  prompt_tokens: number;
  output_tokens: number;
}

export class GroundTruth {
  readonly entries: GroundTruthEntry[] = [];
  private readonly out: WriteStream | null;

  constructor(
    path: string | undefined,
    private readonly keep: boolean,
  ) {
    this.out = path ? createWriteStream(path, { flags: 'a' }) : null;
  }

  add(e: GroundTruthEntry): void {
    if (this.keep) this.entries.push(e);
    this.out?.write(JSON.stringify(e) + '\n');
  }

  close(): Promise<void> {
    const out = this.out;
    if (!out) return Promise.resolve();
    return new Promise((resolve) => out.end(() => resolve()));
  }
}
