/**
 * What a command loads before it runs: the static imports reachable from a module (dynamic
 * `import()` not followed, `import type` erased). Every command starts from cli/main.ts, so it
 * must not load zod or the YAML parser (~0.3 s of CPU: `analyze --help` 0.6 → 0.2 s); analyze
 * of a run must not load a sweep's code (the HTTP server, the Prometheus client) nor DuckDB.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');
const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The source files reachable from `entry` through static imports (paths under src/), each with one chain of modules to it. */
function staticFiles(entry: string): Map<string, string[]> {
  return walk(entry).files;
}

/** The packages reachable from `entry` through static imports, each with one chain of modules to it. */
function staticPackages(entry: string): Map<string, string[]> {
  return walk(entry).packages;
}

function walk(entry: string): { files: Map<string, string[]>; packages: Map<string, string[]> } {
  const start = resolve(SRC, entry);
  const via = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  const packages = new Map<string, string[]>();
  const chain = (f: string | null): string[] => (f === null ? [] : [...chain(via.get(f) ?? null), f.slice(SRC.length + 1)]);
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (m[2]) continue;
      const spec = m[3]!;
      if (spec.startsWith('.')) {
        let target = resolve(dirname(file), spec);
        if (!existsSync(target)) target = target.replace(/\.js$/, '.ts');
        if (!via.has(target)) {
          via.set(target, file);
          queue.push(target);
        }
      } else if (!spec.startsWith('node:')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, chain(file));
      }
    }
  }
  const files = new Map<string, string[]>();
  for (const f of via.keys()) files.set(f.slice(SRC.length + 1), chain(f));
  return { files, packages };
}

describe('start-up imports', () => {
  it('every command starts without zod or the YAML parser', () => {
    const pkgs = staticPackages('cli/entry.ts');
    for (const heavy of ['zod', 'yaml']) expect(pkgs.get(heavy), `${heavy} via ${pkgs.get(heavy)?.join(' → ')}`).toBeUndefined();
  });

  it("analyze of a run loads neither a sweep's code nor DuckDB", () => {
    const pkgs = staticPackages('cli/analyze-command.ts');
    // (protobufjs only for a run with spans.jsonl: session/analyze.ts imports store/spans-file.ts then)
    for (const heavy of ['protobufjs', 'hono', '@hono/node-server', 'prom-client', '@duckdb/node-api', 'yaml']) expect(pkgs.get(heavy), `${heavy} via ${pkgs.get(heavy)?.join(' → ')}`).toBeUndefined();
    // the walker does see packages: analyze validates its flags with zod
    expect(pkgs.has('zod')).toBe(true);
  });

  it("analyze of a run compiles neither the HTML report (it writes none) nor the workload kinds", () => {
    const files = staticFiles('cli/analyze-command.ts');
    for (const heavy of ['session/write-report.ts', 'report/render-report.ts', 'report/charts/compiled-charts.ts', 'workload/index.ts', 'session/run-spec.ts']) {
      expect(files.get(heavy), `${heavy} via ${files.get(heavy)?.join(' → ')}`).toBeUndefined();
    }
    // the walker does see modules: analyze computes the figures
    expect(files.has('metrics/compute.ts')).toBe(true);
  });
});
