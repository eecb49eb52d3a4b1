/**
 * Unknown fields in a Kubernetes object: the part of `kubectl apply --validate=strict` that the
 * kubernetes-models validators leave out (their schemas, like the API's OpenAPI, do not forbid
 * extra properties, so a misspelt `podFailurPolicy` would validate and be dropped by the API
 * server). The field names come from the same package's type declarations, which are generated
 * from the same OpenAPI document: each interface's properties, followed through its imports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const MODELS = dirname(require.resolve('kubernetes-models/package.json'));
const NODE_MODULES = dirname(MODELS);

interface Shape {
  /** Property name → the declaration file of its object type (null: a leaf — scalar, map, or string list). */
  props: Map<string, string | null>;
}

const shapes = new Map<string, Shape | null>();

function resolveImport(from: string, spec: string): string {
  if (spec.startsWith('.')) return join(dirname(from), spec.replace(/\.js$/, '.d.ts'));
  return join(NODE_MODULES, `${spec}.d.ts`);
}

/** The first interface of a declaration file; null when it declares none (a type alias such as IntOrString). */
function shapeOf(file: string): Shape | null {
  if (shapes.has(file)) return shapes.get(file)!;
  const text = readFileSync(file, 'utf8');
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) imports.set(m[1]!, resolveImport(file, m[2]!));
  const head = /^export interface \w+(?: extends ([\w, ]+))? \{$/m.exec(text);
  if (!head) {
    shapes.set(file, null);
    return null;
  }
  const body = text.slice(head.index + head[0].length, text.indexOf('\n}', head.index));
  const props = new Map<string, string | null>();
  if (head[1]?.includes('TypeMeta')) {
    props.set('apiVersion', null);
    props.set('kind', null);
  }
  for (const m of body.matchAll(/^ {4}"([^"]+)"\??: (.+?);?$/gm)) {
    const type = /^(?:Array<)?(I\w+)>?$/.exec(m[2]!.trim());
    const target = type ? imports.get(type[1]!) : undefined;
    props.set(m[1]!, target && existsSync(target) ? target : null);
  }
  const shape = { props };
  shapes.set(file, shape);
  return shape;
}

/** Declaration file of a top-level kind, e.g. ('batch/v1', 'Job') → kubernetes-models/batch/v1/Job.d.ts. */
export function modelFile(apiVersion: string, kind: string): string {
  return join(MODELS, apiVersion, `${kind}.d.ts`);
}

/** Every field path of `value` that the type at `file` does not declare, e.g. "spec.podFailurPolicy". */
export function unknownFields(value: unknown, file: string, path = ''): string[] {
  const shape = shapeOf(file);
  if (!shape || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownFields(v, file, `${path}[${i}]`));
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    if (!shape.props.has(k)) out.push(at);
    else {
      const child = shape.props.get(k);
      if (child) out.push(...unknownFields(v, child, at));
    }
  }
  return out;
}
