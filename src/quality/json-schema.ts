/**
 * JSON-Schema compilation with Ajv (draft-07, Ajv's default dialect): one compiled validator per
 * schema object, so a dataset of thousands of entries sharing a schema compiles it once per entry
 * object and not once per answer. Unknown keywords and formats are ignored (strict: false), so a
 * schema written for another validator still checks what Ajv understands.
 */
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';

// Ajv is loaded (synchronously: it is CommonJS) at the first schema, so a workload without
// JSON-schema checks, or a run without any answer check, does not pay for loading it.
let ajvInstance: AjvClass | null = null;
function ajv(): AjvClass {
  if (ajvInstance === null) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof AjvModule;
    ajvInstance = new Ajv({ strict: false, allErrors: false, validateFormats: false, logger: false });
  }
  return ajvInstance;
}
const compiled = new WeakMap<object, ValidateFunction>();

/** Compile (or fetch the compiled) validator; throws Ajv's error for a schema it cannot compile. */
export function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The first validation error of the last call, as one short line: `/age: must be integer`. */
export function firstSchemaError(validate: ValidateFunction): string {
  const e = validate.errors?.[0];
  if (!e) return 'does not match the schema';
  return `${e.instancePath === '' ? '(root)' : e.instancePath}: ${e.message ?? 'invalid'}`;
}
