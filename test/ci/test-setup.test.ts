/**
 * The one setup step of `npm test` and .ci/run (scripts/test-services.sh, scripts/test.sh) on a
 * machine without the system programs: a PATH holding none of them, with a stand-in apt-get that
 * "installs" a package by putting an executable of its name on that PATH, and a stand-in npm
 * that records the steps it was asked to run. Nothing real is installed or uninstalled.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Machine {
  bin: string;
  log: string;
}

/** A PATH of stand-ins: `id` says `uid`, apt-get installs (or not), npm fails the listed steps. */
function machine(o: { uid: number; aptInstalls: boolean; sudo?: boolean; npmFails?: string[] }): Machine {
  const dir = tempDir('test-setup');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'log');
  writeFileSync(log, '');
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script('id', `echo ${o.uid}`);
  script(
    'apt-get',
    `echo "apt-get $*" >> ${log}
${o.aptInstalls ? `if [ "$1" = install ]; then for a in "$@"; do case "$a" in -*|install) ;; *) printf '#!/bin/bash\\n' > ${bin}/$a; /bin/chmod +x ${bin}/$a ;; esac; done; fi` : ''}
exit 0`,
  );
  if (o.sudo) script('sudo', `echo "sudo $1" >> ${log}\n"$@"`);
  script('npm', `echo "npm $*" >> ${log}\ncase " ${(o.npmFails ?? []).join(' ')} " in *" $2 "*) exit 1 ;; esac\nexit 0`);
  symlinkSync('/usr/bin/dirname', join(bin, 'dirname'));
  return { bin, log };
}

function run(m: Machine, script: string): { code: number; out: string; log: string[] } {
  // PATH is the stand-ins alone: the scripts add the sbin folders themselves, as on Debian.
  const r = spawnSync('/bin/bash', [join(ROOT, 'scripts', script)], { env: { PATH: m.bin, HOME: m.bin }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}`, log: readFileSync(m.log, 'utf8').trim().split('\n').filter(Boolean) };
}

/** Whether this machine has Debian's nats-server in an sbin folder (then it is found, not installed). */
const sbinNats = ['/usr/local/sbin', '/usr/sbin', '/sbin'].some((d) => existsSync(join(d, 'nats-server')));

describe('test setup on a machine without the system programs', () => {
  it('as root: apt-get installs what is missing, once; nats-server in /usr/sbin is found without PATH naming it', () => {
    const m = machine({ uid: 0, aptInstalls: true });
    const r = run(m, 'test-services.sh');
    expect(r.code, r.out).toBe(0);
    expect(r.log[0]).toBe('apt-get update -qq');
    const install = r.log[1]!;
    expect(install).toMatch(/^apt-get install -y -qq --no-install-recommends chromium prometheus/);
    expect(install.includes('nats-server')).toBe(!sbinNats);
    expect(r.log).toHaveLength(2);
    // Present now: a second run installs nothing.
    const again = run(m, 'test-services.sh');
    expect(again.code, again.out).toBe(0);
    expect(again.log).toHaveLength(2);
  });

  it('not root: apt-get through sudo', () => {
    const m = machine({ uid: 1000, aptInstalls: true, sudo: true });
    const r = run(m, 'test-services.sh');
    expect(r.code, r.out).toBe(0);
    expect(r.log.filter((l) => l.startsWith('sudo apt-get'))).toHaveLength(2);
  });

  it('not root and no sudo: one line naming the command to run, exit 1, nothing attempted', () => {
    const m = machine({ uid: 1000, aptInstalls: true });
    const r = run(m, 'test-services.sh');
    expect(r.code).toBe(1);
    expect(r.out.trim()).toMatch(/^test setup: missing chromium prometheus.*; as root run: apt-get install -y --no-install-recommends chromium prometheus/);
    expect(r.log).toEqual([]);
  });

  it('a package that installs no command on PATH: said, exit 1', () => {
    const m = machine({ uid: 0, aptInstalls: false });
    const r = run(m, 'test-services.sh');
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/test setup: installed, but 'chromium' is still not on PATH/);
  });

  it('npm test: setup first, then every step, even after one failed; the command fails', () => {
    const m = machine({ uid: 0, aptInstalls: true, npmFails: ['test:default'] });
    const r = run(m, 'test.sh');
    expect(r.code).toBe(1);
    expect(r.log.filter((l) => l.startsWith('npm'))).toEqual(['npm run typecheck', 'npm run lint', 'npm run test:default', 'npm run test:timing']);
    expect(r.log[0]).toBe('apt-get update -qq');
    expect(r.out).toMatch(/npm test: FAILED: test:default/);
  });

  it('npm test: a missing program that cannot be installed stops it before any step', () => {
    const m = machine({ uid: 1000, aptInstalls: true });
    const r = run(m, 'test.sh');
    expect(r.code).toBe(1);
    expect(r.log.filter((l) => l.startsWith('npm'))).toEqual([]);
  });

  it('.ci/run is the README\'s two commands: npm ci, then npm test', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci.split('\n').filter((l) => /^npm (ci|test)\b/.test(l))).toEqual(['npm ci', 'npm test']);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.test).toBe('bash scripts/test.sh');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/^npm ci && npm test\b/m);
  });
});
