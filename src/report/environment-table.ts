/**
 * Two runs' environment fingerprints side by side, as `compare` prints them (text, Markdown, the
 * HTML page): the rows and their status words come from analysis/environment-diff.ts; this only
 * lays them out. The console shows the identity rows and every row that is not the same; the
 * HTML page shows every row.
 */
import { VARIED_NOTE, type EnvironmentComparison, type FieldComparison } from '../analysis/environment-diff.js';
import type { FingerprintValue } from '../analysis/environment.js';

/** Shown on the console even when the same: what was measured, in five rows. */
const IDENTITY_ROWS = new Set(['model_id', 'engine', 'engine_version', 'gpu_model', 'gpu_count']);

const shown = (v: FingerprintValue): string => (v === null ? '—' : String(v));

export function environmentStatus(f: FieldComparison): string {
  if (f.status === 'same') return 'same';
  if (f.status === 'unknown') return f.note ?? 'unknown';
  if (f.blocks) return 'DIFFERS';
  return `differs (${f.note ?? ''})`;
}

/** [field, A, B, status] rows; `all` false keeps the identity rows and the rows that are not the same. */
export function environmentRows(c: EnvironmentComparison, all: boolean): string[][] {
  return c.fields.filter((f) => all || IDENTITY_ROWS.has(f.field) || f.status !== 'same').map((f) => [f.side === 'client' ? `${f.field} (client)` : f.field, shown(f.a), shown(f.b), environmentStatus(f)]);
}

/** One sentence on the environments: the same, what differs and why it did not block, or why nothing was compared. */
export function environmentSummary(c: EnvironmentComparison, forced: boolean): string {
  if (c.missing) return `Environment: ${c.missing}.`;
  const server = c.fields.filter((f) => f.side === 'server' && f.status === 'differs');
  const client = c.fields.filter((f) => f.side === 'client' && f.status === 'differs');
  const unknown = c.fields.filter((f) => f.status === 'unknown').length;
  const parts: string[] = [];
  if (server.length === 0) parts.push('the server side is the same');
  else {
    const blocking = server.filter((f) => f.blocks).map((f) => f.field);
    const varied = server.filter((f) => f.note === VARIED_NOTE).map((f) => f.field);
    const found = server.filter((f) => !f.blocks && f.note !== VARIED_NOTE).map((f) => f.field);
    if (blocking.length) parts.push(`the server DIFFERS in ${blocking.join(', ')}${forced ? ' (judged anyway: --force)' : ''}`);
    if (varied.length) parts.push(`declared under test (--vary): ${varied.join(', ')}`);
    if (found.length) parts.push(`found by the engine, not set: ${found.join(', ')}`);
  }
  if (client.length) parts.push(`the client host differs in ${client.map((f) => f.field).join(', ')} (never blocks)`);
  if (unknown) parts.push(`${unknown} field${unknown === 1 ? '' : 's'} unknown on a side (not compared)`);
  return `Environment: ${parts.join('; ')}.`;
}
