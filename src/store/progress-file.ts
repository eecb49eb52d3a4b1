/**
 * progress.jsonl in a run directory: one line per live-view frame (about one a second) while
 * the run goes on, so another process — `infermeter dashboard` — can follow it. Written from the
 * coordinating thread's once-a-second progress, never from the senders; a write that fails
 * stops the file, never the run.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROGRESS_FILE = 'progress.jsonl';

export class ProgressFile {
  private broken = false;
  readonly path: string;

  constructor(runDir: string) {
    this.path = join(runDir, PROGRESS_FILE);
  }

  append(frame: unknown): void {
    if (this.broken) return;
    try {
      appendFileSync(this.path, `${JSON.stringify(frame)}\n`);
    } catch {
      this.broken = true;
    }
  }
}
