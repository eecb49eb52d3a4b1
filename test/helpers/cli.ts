/** Runs the CLI in-process with captured output. */
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A writable that collects what is written to it. */
export function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      w.text += chunk.toString();
      cb();
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

/** `signal` stands for Ctrl-C: aborting it interrupts the command as SIGINT would. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = {}, signal: AbortSignal = new AbortController().signal): Promise<CliResult> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout, stderr, env, signal });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
