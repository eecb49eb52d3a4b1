/**
 * The files a code check writes into its scratch directory (docs/quality.md §Code checks):
 * the harness that runs the solution then the tests, and the preload that disables the network.
 * Kept as text so the package needs no extra runtime files and each run gets fresh copies.
 */

/** Printed by the harness after every test passed; exit 0 without it is not a pass. */
export const PASS_MARKER = '__INFERMETER_TESTS_PASSED__';
/** Exit code of the harness when the solution does not compile or lacks the entry function. */
export const MALFORMED_EXIT = 3;
/** Exit code when a test failed or threw. */
export const FAILED_EXIT = 1;

/**
 * Replaces every function exported by the network modules (and fetch, WebSocket, process.binding)
 * with one that throws, then syncs the ESM views of the built-ins so `import('node:net')` sees the
 * stubs too. Loaded with --require before the harness.
 */
export const NO_NETWORK_PRELOAD = `'use strict';
const deny = (what) => function denied() {
  const e = new Error('network access is disabled in code checks (' + what + ')');
  e.code = 'ERR_NETWORK_DISABLED';
  throw e;
};
// Pipes for stdout/stderr are net.Sockets created on first use: create them before the stubs.
void process.stdout;
void process.stderr;
for (const name of ['net', 'tls', 'http', 'https', 'http2', 'dgram', 'dns', 'dns/promises', 'inspector']) {
  let mod;
  try { mod = require('node:' + name); } catch { continue; }
  for (const key of Object.keys(mod)) {
    if (typeof mod[key] !== 'function') continue;
    try { mod[key] = deny(name + '.' + key); } catch {}
  }
}
for (const key of ['fetch', 'WebSocket', 'EventSource', 'Request', 'XMLHttpRequest']) {
  if (key in globalThis) Object.defineProperty(globalThis, key, { value: deny(key), configurable: false, writable: false });
}
for (const key of ['binding', '_linkedBinding', 'dlopen']) {
  try { Object.defineProperty(process, key, { value: deny('process.' + key), configurable: false, writable: false }); } catch {}
}
require('node:module').syncBuiltinESMExports();
`;

/**
 * Runs solution.js, then (if given) checks the entry function exists, then runs tests.js inside an
 * async function. Both go through vm.runInThisContext, so the tests see the solution's top-level
 * declarations (scripts share the global lexical scope) and may use \`await\` and \`assert\`.
 */
export function harnessSource(entry: string | undefined): string {
  return `'use strict';
const fs = require('node:fs');
const vm = require('node:vm');
const path = require('node:path');
globalThis.assert = require('node:assert/strict');
globalThis.require = require;
globalThis.module = { exports: {} };
globalThis.exports = globalThis.module.exports;
const read = (f) => fs.readFileSync(path.join(__dirname, f), 'utf8');
const bail = (code, msg) => { process.stderr.write(String(msg).replace(/\\s+/g, ' ').slice(0, 300) + '\\n'); process.exit(code); };
let solution;
try { solution = new vm.Script(read('solution.js'), { filename: 'solution.js' }); }
catch (e) { bail(${MALFORMED_EXIT}, 'does not compile: ' + e.message); }
try { solution.runInThisContext(); } catch (e) { bail(${FAILED_EXIT}, 'solution threw: ' + (e && e.message)); }
${entry === undefined ? '' : `if (vm.runInThisContext('typeof ${entry}') !== 'function') bail(${MALFORMED_EXIT}, 'no function named ${entry}');`}
let tests;
try { tests = new vm.Script('(async () => {\\n' + read('tests.js') + '\\n})()', { filename: 'tests.js' }); }
catch (e) { bail(${FAILED_EXIT}, 'tests do not compile: ' + e.message); }
Promise.resolve(tests.runInThisContext()).then(
  () => { process.stdout.write('${PASS_MARKER}\\n'); process.exit(0); },
  (e) => bail(${FAILED_EXIT}, 'test failed: ' + (e && e.message)),
);
`;
}

/** ESM-style `export` keywords stripped, so `export function f` runs as a plain script. */
export function asScript(code: string): string {
  return code.replace(/^(\s*)export\s+(?:default\s+)?(?=(?:async\s+)?function\b|class\b|const\b|let\b|var\b)/gm, '$1');
}
