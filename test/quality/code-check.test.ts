/**
 * Code checks run untrusted JavaScript: these tests pin the isolation (docs/quality.md §Code checks).
 * No wall-clock assertion: the time-limit test asserts the outcome, with a limit far below the
 * vitest timeout and far above a normal run's start-up.
 */
import { existsSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QualityCheck } from '../../src/quality/check-types.js';
import { CHECK_NICENESS, runSandboxed } from '../../src/quality/code-sandbox.js';
import { evaluateCheck } from '../../src/quality/evaluate.js';
import { tempDir } from '../helpers/temp-dir.js';

const add = (tests: string, extra: Partial<Extract<QualityCheck, { kind: 'code' }>> = {}): QualityCheck => ({ kind: 'code', language: 'javascript', tests, entry: 'add', ...extra });
const good = 'function add(a, b) {\n  return a + b;\n}';

describe('code check outcomes', () => {
  it('a passing solution, in a fence or bare, with export or without', async () => {
    const check = add('assert.equal(add(2, 3), 5);\nassert.equal(add(-1, 1), 0);');
    expect(await evaluateCheck(check, `Here it is:\n\`\`\`javascript\n${good}\n\`\`\``)).toEqual({ pass: true, outcome: 'correct', reason: 'all tests passed' });
    expect((await evaluateCheck(check, `export ${good}`)).pass).toBe(true);
    expect((await evaluateCheck(check, 'const add = (a, b) => a + b;')).pass).toBe(true);
  });
  it('a failing solution is wrong, with the assertion in the reason', async () => {
    const o = await evaluateCheck(add('assert.equal(add(2, 3), 5);'), 'function add(a, b) { return a - b; }');
    expect(o).toMatchObject({ pass: false, outcome: 'wrong' });
    expect(o.reason).toContain('test failed');
    expect(o.reason).toContain('-1 !== 5');
  });
  it('code that does not compile, or lacks the entry function, is malformed', async () => {
    expect(await evaluateCheck(add('assert.ok(true)'), 'function add(a, b) { return a +')).toMatchObject({ pass: false, outcome: 'malformed' });
    expect(await evaluateCheck(add('assert.ok(true)'), 'function sum(a, b) { return a + b; }')).toMatchObject({ pass: false, outcome: 'malformed', reason: 'no function named add' });
  });
  it('async tests are awaited', async () => {
    const check: QualityCheck = { kind: 'code', language: 'javascript', tests: 'assert.equal(await later(4), 8);', entry: 'later' };
    expect((await evaluateCheck(check, 'async function later(x) { await new Promise((r) => setTimeout(r, 5)); return 2 * x; }')).pass).toBe(true);
    expect((await evaluateCheck(check, 'async function later(x) { return x; }')).pass).toBe(false);
  });
  it('exiting early without running the tests is not a pass', async () => {
    expect(await evaluateCheck(add('assert.ok(false)'), `${good}\nprocess.exit(0);`)).toMatchObject({ pass: false, reason: 'exited before the tests finished' });
  });
});

describe('code check limits', () => {
  it('runs at the lowest priority, so it never takes the CPU from the load', async () => {
    const check = add(`assert.equal(require('node:os').getPriority(), ${CHECK_NICENESS});`);
    expect(await evaluateCheck(check, good)).toMatchObject({ pass: true });
  });
  it('an infinite loop is killed by the time limit', async () => {
    expect(await evaluateCheck(add('add(1, 2);', { timeout_ms: 3000 }), 'function add(a, b) { for (;;) {} }')).toEqual({ pass: false, outcome: 'wrong', reason: 'timed out after 3000 ms' });
  });
  it('runaway allocation hits the memory limit', async () => {
    const o = await evaluateCheck(add('const keep = []; for (;;) keep.push(new Array(1e5).fill(add(1, 1)));', { timeout_ms: 60_000 }), good);
    expect(o).toEqual({ pass: false, outcome: 'wrong', reason: 'ran out of memory' });
  });
});

describe('code check isolation', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.on('error', () => {}); // the client side may reset; only the count matters
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('cannot reach a server on 127.0.0.1 by net, http, fetch or a dynamic import', async () => {
    // The tests pass only if some attempt connects; every attempt must fail.
    const tests = `
      let reached = [];
      const attempt = async (name, fn) => { try { await fn(); reached.push(name); } catch {} };
      await attempt('net', () => new Promise((res, rej) => { const s = require('net').connect(${port}, '127.0.0.1', () => { s.destroy(); res(); }); s.on('error', rej); }));
      await attempt('http', () => new Promise((res, rej) => require('http').get('http://127.0.0.1:${port}/', res).on('error', rej)));
      await attempt('fetch', () => fetch('http://127.0.0.1:${port}/'));
      await attempt('import', async () => { const net = await import('node:net'); await new Promise((res, rej) => { const s = net.connect(${port}, '127.0.0.1', res); s.on('error', rej); }); });
      await attempt('binding', () => { process.binding('tcp_wrap'); });
      assert.deepEqual(reached, [], 'reached the network');
      throw new Error('no network');`;
    const o = await evaluateCheck(add(tests), good);
    expect(o).toEqual({ pass: false, outcome: 'wrong', reason: 'test failed: no network' });
    expect(connections).toBe(0);
    // The same server is reachable from this process, so the check above could have failed.
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
    expect(connections).toBe(1);
  });

  it('cannot write outside its scratch directory, can write inside it', async () => {
    const outside = join(tempDir('code-outside'), 'pwned.txt');
    const o = await evaluateCheck(add(`require('fs').writeFileSync(${JSON.stringify(outside)}, 'x');`), good);
    expect(o.pass).toBe(false);
    expect(o.reason).toContain('Access to this API has been restricted');
    expect(existsSync(outside)).toBe(false);
    const inside = await evaluateCheck(add(`require('fs').writeFileSync('note.txt', 'x'); assert.equal(require('fs').readFileSync('note.txt', 'utf8'), 'x');`), good);
    expect(inside.pass).toBe(true);
  });

  it('cannot read outside its scratch directory or start processes; inherits no environment', async () => {
    expect((await evaluateCheck(add(`require('fs').readFileSync('/etc/hostname');`), good)).pass).toBe(false);
    expect((await evaluateCheck(add(`require('child_process').execSync('true');`), good)).pass).toBe(false);
    expect((await evaluateCheck(add(`assert.deepEqual(Object.keys(process.env), []);`), good)).pass).toBe(true);
  });

  it('runs in a fresh scratch directory that is removed afterwards', async () => {
    const r = await runSandboxed({ solution: 'process.stdout.write(process.cwd() + "\\n");', tests: '' });
    const cwd = r.stdout.split('\n')[0]!;
    expect(cwd).toMatch(/infermeter-code-/);
    expect(existsSync(cwd)).toBe(false);
  });
});
