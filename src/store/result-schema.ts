/**
 * Which result.json versions this build reads (docs/result-schema.md): the one it writes and the
 * older ones whose figures mean the same. Bump RESULT_SCHEMA on any breaking change to the shape.
 */
export const RESULT_SCHEMA = 'infermeter.result/3';
/**
 * Schemas whose figures readers still accept: /1 differs from /2 only in a validity check's name,
 * /2 from /3 only in lacking `environment` (read as null: not fingerprinted).
 */
export const READABLE_RESULT_SCHEMAS: readonly string[] = ['infermeter.result/1', 'infermeter.result/2', RESULT_SCHEMA];

/**
 * Why a result.json's `schema` is not one this build reads (null when it is): a later version may
 * have changed what a field means, so its figures are not read as if they were ours.
 */
export function unreadableResultSchema(doc: unknown): string | null {
  const schema = typeof doc === 'object' && doc !== null ? (doc as { schema?: unknown }).schema : undefined;
  if (typeof schema === 'string' && READABLE_RESULT_SCHEMAS.includes(schema)) return null;
  const reads = `this build reads ${READABLE_RESULT_SCHEMAS.join(' and ')}`;
  if (typeof schema === 'string' && schema.startsWith('infermeter.result/')) return `schema "${schema}" is not one ${reads} (written by a newer infermeter?)`;
  return `not an infermeter result (schema ${JSON.stringify(schema ?? null)}; ${reads})`;
}
