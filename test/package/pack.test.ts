/**
 * The package as a user gets it: `npm pack` of the dist/ that `npm ci` built (with declarations), the tarball
 * unpacked into a fresh project's node_modules/infermeter, and `import … from 'infermeter'` by
 * name — run in Node and type-checked by tsc. The dependencies come from this checkout's
 * node_modules (linked), so the test needs no network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/.bin/tsc');

describe('the packed package, imported by name', { timeout: 300_000 }, () => {
  let project: string;
  beforeAll(() => {
    project = tempDir('pack');
    // dist/ is built by `npm ci` (the prepare script); packing without scripts keeps tsc from rewriting
    // dist/ under the other test files that run bin/infermeter.js at the same time.
    const out = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', project], { cwd: ROOT, encoding: 'utf8' });
    const tgz = join(project, out.trim().split('\n').pop()!);
    const pkg = join(project, 'node_modules/infermeter');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['-xzf', tgz, '-C', pkg, '--strip-components=1']);
    for (const dep of readdirSync(join(ROOT, 'node_modules'))) {
      if (dep !== 'infermeter' && !existsSync(join(project, 'node_modules', dep))) symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  });

  it('runs: simulate() returns the documented result object, nothing printed', () => {
    writeFileSync(
      join(project, 'use.mjs'),
      `import { simulate, sweep, EXIT_CODES } from 'infermeter';
const r = await simulate({ load: { num_prompts: 20, request_rate: 10 }, workload: { random_input_len: 32, random_output_len: 8 }, output: { save: false } });
const s = await sweep({ load: { num_prompts: 10 }, workload: { random_input_len: 16, random_output_len: 4 }, output: { save: false } }, { request_rates: [2, 4] }, { virtual: true });
console.log(JSON.stringify({ schema: r.schema, total: r.metrics.requests.total, valid: r.validity.valid, sweep: s.schema, stages: s.stages.length, invalid: EXIT_CODES.INVALID_RUN }));`,
    );
    const out = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({ schema: 'infermeter.result/3', total: 20, valid: true, sweep: 'infermeter.sweep/2', stages: 2, invalid: 5 });
  });

  it('exports the sessions by name: plan() returns the plan report', () => {
    writeFileSync(
      join(project, 'six.mjs'),
      `import { run, analyze, compare, sweep, simulate, plan } from 'infermeter';
const p = await plan({ traffic: '2rps', slo: ['p95(ttft) < 10s'], hardware: ['h100'], tensorParallelSize: '1', probeDuration: '2s', randomInputLen: 64, randomOutputLen: 8 });
console.log(JSON.stringify({ kinds: [run, analyze, compare, sweep, simulate, plan].map((f) => typeof f), plan: p.schema, options: p.options.map((o) => o.name) }));`,
    );
    const out = spawnSync(process.execPath, ['six.mjs'], { cwd: project, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual({
      kinds: ['function', 'function', 'function', 'function', 'function', 'function'],
      plan: 'infermeter.plan/1',
      options: ['h100 × TP1'],
    });
  });

  it('compare() takes two saved runs and returns the comparison object, nothing printed', () => {
    writeFileSync(
      join(project, 'compare.mjs'),
      `import { simulate, compare } from 'infermeter';
const spec = (name) => ({ name, load: { num_prompts: 40, request_rate: 10, seed: 1 }, workload: { random_input_len: 32, random_output_len: 8 }, output: { result_dir: 'runs', report: false } });
const a = await simulate(spec('a'));
const b = await simulate(spec('b'));
const c = compare(['runs/' + a.run.id, 'runs/' + b.run.id], { resamples: 50, failOnRegression: '5%' });
console.log(JSON.stringify({ schema: c.schema, pairs: c.pairs.length, changed: c.pairs[0].figures.filter((f) => f.delta !== null && f.delta !== 0).length, gatesPass: c.gates.every((g) => g.pass) }));`,
    );
    const out = spawnSync(process.execPath, ['compare.mjs'], { cwd: project, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    // The same spec and seed twice in virtual time: the same records, so no figure moved.
    expect(JSON.parse(out.stdout)).toEqual({ schema: 'infermeter.compare/1', pairs: 1, changed: 0, gatesPass: true });
  });

  it('has types: a correct use type-checks, a wrong one does not', () => {
    writeFileSync(join(project, 'good.ts'), `import { simulate, compare, type RunResult, type CompareResult } from 'infermeter';\nconst r: RunResult = await simulate({ load: { num_prompts: 5 } });\nexport const n: number = r.metrics.requests.total;\nexport const c = (): CompareResult => compare(['a', 'b'], { failOnRegression: '5%', resamples: 100 });\n`);
    writeFileSync(join(project, 'bad.ts'), `import { simulate } from 'infermeter';\nconst r = await simulate({ load: { num_prompts: 5 } });\nexport const n: string = r.metrics.requests.total;\n`);
    const ok = spawnSync(TSC, ['--noEmit', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--strict', '--skipLibCheck', '--types', 'node', 'good.ts'], { cwd: project, encoding: 'utf8' });
    expect(ok.status, ok.stdout).toBe(0);
    const bad = spawnSync(TSC, ['--noEmit', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--strict', '--skipLibCheck', '--types', 'node', 'bad.ts'], { cwd: project, encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toMatch(/bad\.ts\(3,14\): error TS2322: Type 'number' is not assignable to type 'string'/);
  });
});
