#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` via the prepare script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
