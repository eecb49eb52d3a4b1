#!/usr/bin/env -S node --max-semi-space-size=4
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` via the prepare script).
// The flag (run as a program or through npm's bin link; `node bin/infermeter.js` runs with V8's
// default): a young generation of 4 MiB semi-spaces instead of 16, so a long run read back
// (analyze, report, export) peaks lower, at no measurable CPU cost.
//
// The commands that read saved runs back run in a child with V8's optimizing compiler on the main
// thread (--no-concurrent-recompilation): they are batch work on a 2-core machine, where the
// background compiler cost more CPU than it saved wall time (docs/performance.md, "Session 14").
// A live run keeps the background compiler: a compile on the main thread would stall the
// client's event loop mid-measurement.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const READERS = new Set(['analyze', 'report', 'compare', 'export']);
const FLAG = '--no-concurrent-recompilation';

if (READERS.has(process.argv[2] ?? '') && !process.execArgv.includes(FLAG)) {
  const child = spawn(process.execPath, [...process.execArgv, FLAG, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // A signal for this process is the child's (a terminal's Ctrl-C reaches both; these commands stop on the first).
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, () => child.kill(s));
  child.on('error', (err) => {
    console.error(`error: cannot start the CLI (${err.message})`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const s of signals) process.removeAllListeners(s);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  await import('../dist/cli/entry.js');
}
