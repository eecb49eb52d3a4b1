/** A nested value as [dotted.path, text] rows, for tables of what a run was (fingerprints). */
export function flattenFacts(value: unknown, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (value === null || value === undefined) return out;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) {
    out.push([prefix, value.join(', ')]);
  } else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flattenFacts(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push([prefix, String(value)]);
  return out;
}
