/** The open-file bound as a shell meets it (issue 24): under `ulimit -n`, refused before t = 0 in one line, exit 2; a missing run directory is one line per command. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { oneErrorLine as oneLine } from '../helpers/one-line.js';

const BIN = new URL('../../bin/infermeter.js', import.meta.url).pathname;

describe('open files before t = 0', () => {
  it.skipIf(process.platform !== 'linux')('run --concurrency 400 under ulimit -n 256: refused with both numbers and the fix', () => {
    const out = spawnSync('bash', ['-c', `ulimit -n 256; exec node ${BIN} run --concurrency 400 --num-prompts 800 --random-output-len 2 --no-save --workers 1`], { encoding: 'utf8', timeout: 60_000 });
    expect(out.status, out.stderr).toBe(2);
    expect(out.stderr.trim().split('\n')).toEqual([
      'error: --concurrency 400: needs ~872 open files (400 connections × 2 (the built-in simulator serves them in this process) + 72 for files, scrapes and 1 load thread), ' +
        "beyond this process's open-file limit of 256; that is the hard limit too (Node raises its soft limit to the hard one at start): run from a shell allowed `ulimit -n 872` (a hard limit is raised as root: limits.conf, systemd LimitNOFILE, docker --ulimit nofile=872), or lower the load",
    ]);
  });
});

describe('a missing run directory: one line, exit 2', () => {
  const missing = '/nonexistent/infermeter-run';
  it('report', async () => expect(oneLine(await runCli(['report', missing]))).toBe(`error: ${missing}: no such run directory`));
  it('export', async () => expect(oneLine(await runCli(['export', missing, '--format', 'csv']))).toBe(`error: ${missing}: no such run directory`));
  it('compare', async () => expect(oneLine(await runCli(['compare', missing, `${missing}-2`]))).toBe(`error: ${missing}: no such run directory or file`));
  it('analyze', async () => expect(oneLine(await runCli(['analyze', missing]))).toBe(`error: ${missing}: no such run directory or records file`));
});
