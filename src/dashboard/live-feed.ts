/**
 * Server-sent events that follow a run in progress: every line the run appends to its
 * progress.jsonl goes out as a `frame` event (the file is read from where the last read
 * ended), and an `end` event follows once result.json exists. Polling a small file twice a
 * second costs nothing and works on every file system, where fs.watch does not.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SSEStreamingApi } from 'hono/streaming';
import { PROGRESS_FILE } from '../store/progress-file.js';

export const POLL_MS = 500;

/** Reads the complete lines appended to `path` since byte `from`. */
export function readNewLines(path: string, from: number): { lines: string[]; next: number } {
  if (!existsSync(path)) return { lines: [], next: from };
  const size = statSync(path).size;
  if (size <= from) return { lines: [], next: from };
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - from);
    readSync(fd, buf, 0, buf.length, from);
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n');
    if (end < 0) return { lines: [], next: from };
    // Only whole lines: a line being written is picked up by the next poll.
    return { lines: text.slice(0, end).split('\n').filter((l) => l !== ''), next: from + Buffer.byteLength(text.slice(0, end + 1)) };
  } finally {
    closeSync(fd);
  }
}

/** Streams `runDir`'s progress until the run ends or the client goes away. */
export async function followRun(stream: SSEStreamingApi, runDir: string, pollMs = POLL_MS): Promise<void> {
  const path = join(runDir, PROGRESS_FILE);
  let offset = 0;
  let closed = false;
  stream.onAbort(() => {
    closed = true;
  });
  for (;;) {
    const { lines, next } = readNewLines(path, offset);
    offset = next;
    for (const line of lines) await stream.writeSSE({ event: 'frame', data: line });
    if (existsSync(join(runDir, 'result.json'))) {
      // The last frames may have landed with the result: one more read before saying so.
      const rest = readNewLines(path, offset);
      for (const line of rest.lines) await stream.writeSSE({ event: 'frame', data: line });
      await stream.writeSSE({ event: 'end', data: '{}' });
      return;
    }
    if (closed) return;
    await stream.sleep(pollMs);
  }
}
