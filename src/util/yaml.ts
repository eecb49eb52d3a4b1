/**
 * YAML parsing, the parser loaded on first use: importing it costs ~0.1 s of CPU at start-up,
 * which a command that reads no YAML file (analyze, report, compare, export of a run) should not
 * pay. The package's Node entry is CommonJS for `import` and `require` alike: the same code.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

type YamlModule = typeof Yaml;
let yaml: YamlModule | null = null;

export function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return yaml.parse(text);
}
