/**
 * Plain option trees (a parsed config file, flags set by path). Apart from load-spec.ts so that
 * the flag definitions every command registers at start-up do not load the YAML parser.
 */
export type PlainObject = Record<string, unknown>;

export function isPlainObject(v: unknown): v is PlainObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets `value` at `path` in a fresh nested object tree. */
export function setPath(target: PlainObject, path: readonly string[], value: unknown): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as PlainObject;
  }
  node[path[path.length - 1]!] = value;
}
