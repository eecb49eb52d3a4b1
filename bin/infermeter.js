#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` via the prepare script).
import '../dist/cli/entry.js';
