/**
 * The client side of a run's environment fingerprint (analysis/environment.ts): the host that
 * sent the load and the infermeter that measured it. Each probe is bounded and never fails the
 * run; what cannot be read is null with its reason.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arch, availableParallelism, cpus, release, type } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientFingerprint } from '../analysis/environment.js';
import { infermeterVersion } from './version.js';

/** The folder holding package.json (src/ and dist/ both sit one level below it). */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The checkout's HEAD commit, or why there is none (installed from npm, git missing, too slow). */
export function gitCommit(root: string, timeoutMs: number): Promise<{ commit: string } | { reason: string }> {
  if (!existsSync(join(root, '.git'))) return Promise.resolve({ reason: 'not run from a git checkout' });
  return new Promise((resolve) => {
    execFile('git', ['-C', root, 'rev-parse', 'HEAD'], { timeout: timeoutMs }, (err, stdout) => {
      const commit = String(stdout).trim();
      if (err) resolve({ reason: `git rev-parse HEAD failed (${(err as NodeJS.ErrnoException).code ?? err.message.split('\n')[0]})` });
      else if (!/^[0-9a-f]{40,64}$/.test(commit)) resolve({ reason: 'git rev-parse HEAD gave no commit' });
      else resolve({ commit });
    });
  });
}

export async function clientFingerprint(timeoutMs: number, root: string = PACKAGE_ROOT): Promise<{ client: ClientFingerprint; unknown: Record<string, string> }> {
  const unknown: Record<string, string> = {};
  const cpu = cpus()[0]?.model.trim() || null;
  if (cpu === null) unknown.cpu_model = 'the OS names no CPU model';
  const git = await gitCommit(root, timeoutMs);
  if ('reason' in git) unknown.git_commit = git.reason;
  return {
    client: {
      cpu_model: cpu,
      cpu_cores: availableParallelism(),
      os: `${type()} ${release()} ${arch()}`,
      node_version: process.version,
      infermeter_version: infermeterVersion(),
      git_commit: 'commit' in git ? git.commit : null,
    },
    unknown,
  };
}
