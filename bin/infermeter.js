#!/usr/bin/env -S node --max-semi-space-size=4
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` via the prepare script).
// The flag (run as a program or through npm's bin link; `node bin/infermeter.js` runs with V8's
// default): a young generation of 4 MiB semi-spaces instead of 16, so a long run read back
// (analyze, report, export) peaks lower, at no measurable CPU cost.
import '../dist/cli/entry.js';
