/**
 * Two runs' environment fingerprints side by side, and whether their difference forbids a
 * verdict (docs/compare.md §Environment). A server-side field that differs and that the user did
 * not declare under test (`--vary`) means the two runs measured different things, so a change in
 * their figures cannot be put down to what the user changed. Client-host fields and engine
 * settings that are outcomes (OUTCOME_SETTINGS) are shown and never block; a field unknown on
 * either side cannot be compared and does not block either (the table says so).
 */
import { UserError } from '../errors/user-error.js';
import { FIELD_GROUPS, OUTCOME_SETTINGS, fingerprintNames, flattenEnvironment, isFingerprintName, type FingerprintSide, type FingerprintValue, type RunEnvironment } from './environment.js';

export type FieldStatus = 'same' | 'differs' | 'unknown';

/** The note of a difference declared under test. */
export const VARIED_NOTE = 'under test: --vary';

export interface FieldComparison {
  field: string;
  side: FingerprintSide;
  a: FingerprintValue;
  b: FingerprintValue;
  status: FieldStatus;
  /** A server-side difference not declared under test: the comparison is refused. */
  blocks: boolean;
  /** Why a difference does not block, or why a field could not be compared; null otherwise. */
  note: string | null;
}

export interface EnvironmentComparison {
  fields: FieldComparison[];
  /** The fields that block, in table order. */
  blocking: string[];
  /** Said when a side carries no fingerprint (a vLLM file, a result or sweep written before fingerprints); then nothing blocks. */
  missing: string | null;
  /** The names declared under test, as given. */
  vary: string[];
}

/** `--vary engine_version,gpu` (repeatable): the names, checked; a name that is no field or group is one clear line. */
export function parseVary(values: readonly string[]): string[] {
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  for (const n of names) if (!isFingerprintName(n)) throw new UserError(`--vary ${n}: not a fingerprint field; give one or more of ${fingerprintNames()}`);
  return [...new Set(names)];
}

/** Whether a declared name covers `field` (the field itself, its group, or `engine_settings` for each of its keys). */
function covered(field: string, vary: readonly string[]): boolean {
  const base = field.startsWith('engine_settings.') ? 'engine_settings' : field;
  return vary.some((v) => v === field || v === base || (FIELD_GROUPS[v] ?? []).includes(base));
}

const NOT_STATED = null;

export function compareEnvironments(a: RunEnvironment | null, b: RunEnvironment | null, vary: readonly string[] = []): EnvironmentComparison {
  if (!a || !b) {
    const which = !a && !b ? 'neither side carries an' : !a ? 'A carries no' : 'B carries no';
    return { fields: [], blocking: [], missing: `${which} environment fingerprint (a vLLM result file, or a result or sweep written before fingerprints), so the environments were not compared`, vary: [...vary] };
  }
  const fa = flattenEnvironment(a);
  const fb = flattenEnvironment(b);
  // Fields in A's order, then the engine settings only B states.
  const names = [...fa.map((f) => f.field)];
  for (const f of fb) if (!names.includes(f.field)) names.splice(settingsInsertAt(names, f.field), 0, f.field);
  const byA = new Map(fa.map((f) => [f.field, f]));
  const byB = new Map(fb.map((f) => [f.field, f]));
  const fields = names.map((field): FieldComparison => {
    const side: FingerprintSide = byA.get(field)?.side ?? byB.get(field)?.side ?? 'server';
    const setting = field.startsWith('engine_settings.');
    const va = byA.get(field)?.value ?? NOT_STATED;
    const vb = byB.get(field)?.value ?? NOT_STATED;
    // A setting one engine states and the other does not (both state settings): set on one side only.
    const bothStateSettings = setting && a.server.engine_settings !== null && b.server.engine_settings !== null;
    let status: FieldStatus;
    if (va === null && vb === null) status = 'same';
    else if (va === null || vb === null) status = bothStateSettings ? 'differs' : 'unknown';
    else status = va === vb ? 'same' : 'differs';
    let note: string | null = null;
    let blocks = false;
    if (status === 'unknown') {
      const key = setting ? 'engine_settings' : field;
      note = `unknown in ${va === null ? 'A' : 'B'}${(va === null ? a : b).unknown[key] ? `: ${(va === null ? a : b).unknown[key]}` : ''}`;
    } else if (status === 'differs') {
      if (side === 'client') note = 'client host: shown, never blocks';
      else if (setting && OUTCOME_SETTINGS.has(field.slice('engine_settings.'.length))) note = 'found by the engine, not set: shown, never blocks';
      else if (covered(field, vary)) note = VARIED_NOTE;
      else blocks = true;
    }
    return { field, side, a: va, b: vb, status, blocks, note };
  });
  return { fields, blocking: fields.filter((f) => f.blocks).map((f) => f.field), missing: null, vary: [...vary] };
}

/** Where a setting only B states goes: after A's last engine setting, else after engine_version. */
function settingsInsertAt(names: string[], field: string): number {
  if (!field.startsWith('engine_settings.')) return names.length;
  let at = names.indexOf('engine_version') + 1;
  for (let i = 0; i < names.length; i++) if (names[i]!.startsWith('engine_settings.')) at = i + 1;
  return at;
}

const shown = (v: FingerprintValue): string => (v === null ? '(not stated)' : typeof v === 'string' ? JSON.stringify(v) : String(v));

/** The one line compare prints (exit 2) when the environments of A and B forbid a verdict. */
export function refusalLine(c: EnvironmentComparison, a: string, b: string): string {
  const rows = c.fields.filter((f) => f.blocks);
  const what = rows.map((f) => `${f.field} (${shown(f.a)} vs ${shown(f.b)})`).join(', ');
  return `the server differs between ${a} and ${b} in ${what}, which is not declared under test: no verdict. Declare it with --vary ${rows.map((f) => f.field).join(',')} (or a group: gpu, engine, model), or judge anyway with --force`;
}
