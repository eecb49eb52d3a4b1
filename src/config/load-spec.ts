/**
 * Turns a config file (YAML or JSON) plus CLI flag values into one validated RunSpec.
 * Flags override the file. Errors name the flag when a flag set the value, else the file
 * and field, so the user gets one line that says what to fix.
 */
import { describeIssue } from './zod-issue.js';
import { readFileSync } from 'node:fs';
import { parseYaml } from '../util/yaml.js';
import type { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { isPlainObject, type PlainObject } from './plain-object.js';

export { setPath, type PlainObject } from './plain-object.js';

/** Deep merge: objects merge key by key; arrays and scalars from `over` replace. */
export function deepMerge(base: PlainObject, over: PlainObject): PlainObject {
  const out: PlainObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const prev = out[key];
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

export function readSpecFile(path: string): PlainObject {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`--config ${path}: cannot read file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UserError(`--config ${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${msg}`);
  }
  if (data == null) return {};
  if (!isPlainObject(data)) throw new UserError(`--config ${path}: expected a mapping of options at the top level`);
  return data;
}

/**
 * Validates `merged` with `schema`. On failure throws a UserError for the first issue,
 * naming the flag that set the field (from `flagPaths`) or the config file and field.
 */
export function validateSpec<S extends z.ZodType>(
  schema: S,
  merged: PlainObject,
  origin: { flagPaths: Map<string, string>; configPath: string | null },
): z.output<S> {
  const result = schema.safeParse(merged);
  if (result.success) return result.data;
  const issue = describeIssue(result.error.issues[0]!);
  const key = issue.path;
  // A flag may set a parent path (e.g. goodput) and the issue point into it (goodput.1).
  let flag: string | undefined;
  for (const [p, f] of origin.flagPaths) {
    if (key === p || key.startsWith(`${p}.`)) flag = f;
  }
  const where = flag ?? (origin.configPath ? `${origin.configPath}: ${key || '(top level)'}` : key || 'spec');
  throw new UserError(`${where}: ${issue.message}`);
}
