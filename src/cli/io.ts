/** What a command may touch of the outside world; tests pass their own. */

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream | (NodeJS.WritableStream & { isTTY?: boolean });
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C: the run stops, keeps what it measured and still reports. */
  signal?: AbortSignal;
  /** --proxy URL (a string) or --no-proxy (false): overrides HTTP(S)_PROXY of env. */
  proxy?: string | false;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
