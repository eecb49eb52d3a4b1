/**
 * The launcher (bin/infermeter.js) runs the commands that read saved runs back in a child with
 * --no-concurrent-recompilation: what the child prints and its exit code reach the caller.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const BIN = new URL('../../bin/infermeter.js', import.meta.url).pathname;

describe('the launcher', () => {
  it('passes the child’s output and exit code through: analyze of a run, and of no run', async () => {
    const results = tempDir('launcher');
    expect((await runCli(['sim', 'run', '--num-prompts', '20', '--request-rate', '10', '--result-dir', results, '--no-report', '--quiet'])).code).toBe(0);
    const dir = join(results, readdirSync(results).find((d) => !d.startsWith('.'))!);
    const direct = await runCli(['analyze', dir, '--json']);
    const out = spawnSync(BIN, ['analyze', dir, '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(JSON.parse(direct.stdout));
    const missing = spawnSync(BIN, ['analyze', join(results, 'nothing-here')], { encoding: 'utf8', timeout: 60_000 });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });

});
