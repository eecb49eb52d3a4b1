/**
 * Grouped compare (docs/compare.md §Repeated runs): `compare A1 A2 A3 -- B1 B2 B3`, or two repeat
 * directories (`run --repeat N`), or a repeat directory on either side of `--`. Each group needs
 * two runs or more, all of one comparable spec (the history's spec hash); the groups are then
 * compared by analysis/compare/group-compare.ts. Bad input is one line (UserError, exit 2).
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { rowFromRunDir } from '../history/history-row.js';
import { loadSide, type CompareInputs } from './compare-sides.js';
import { GROUP_MARK } from '../analysis/compare/group-mark.js';
import { READABLE_REPEATS_SCHEMAS, type RepeatsFile } from '../report/repeats-json.js';

export { GROUP_MARK };

export interface GroupArgs {
  a: { label: string; runs: string[] };
  b: { label: string; runs: string[] };
}

export function isRepeatDir(path: string): boolean {
  return existsSync(join(path, 'repeats.json')) && statSync(path).isDirectory();
}

/** The run directories of a repeat directory, as repeats.json lists them. */
export function repeatRuns(dir: string): string[] {
  let file: Partial<RepeatsFile>;
  try {
    file = JSON.parse(readFileSync(join(dir, 'repeats.json'), 'utf8')) as Partial<RepeatsFile>;
  } catch (err) {
    throw new UserError(`${dir}/repeats.json: not valid JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
  if (typeof file.schema !== 'string' || !READABLE_REPEATS_SCHEMAS.includes(file.schema)) throw new UserError(`${dir}/repeats.json: schema ${JSON.stringify(file.schema ?? null)}; compare reads ${READABLE_REPEATS_SCHEMAS.join(', ')}`);
  return (file.runs ?? []).map((r) => join(dir, r.dir));
}

const expand = (paths: string[]): string[] => paths.flatMap((p) => (existsSync(p) && isRepeatDir(p) ? repeatRuns(p) : [p]));

/** The groups the arguments name, or null for an ordinary compare (A against B, C, …). */
export function groupArgs(paths: readonly string[]): GroupArgs | null {
  const mark = paths.indexOf(GROUP_MARK);
  if (mark >= 0) {
    const a = paths.slice(0, mark);
    const b = paths.slice(mark + 1);
    if (b.includes(GROUP_MARK)) throw new UserError('compare: give two groups, A… -- B… (one `--` between them)');
    return { a: { label: a.join(' '), runs: expand(a) }, b: { label: b.join(' '), runs: expand(b) } };
  }
  const repeats = paths.filter((p) => existsSync(p) && isRepeatDir(p));
  if (repeats.length === 0) return null;
  if (paths.length !== 2 || repeats.length !== 2) throw new UserError('compare: a repeat directory compares with another repeat directory (compare REPEAT_A REPEAT_B), or as a group: compare A1 A2 -- REPEAT_B');
  return { a: { label: paths[0]!, runs: repeatRuns(paths[0]!) }, b: { label: paths[1]!, runs: repeatRuns(paths[1]!) } };
}

const real = (p: string): string => (existsSync(p) ? realpathSync(p).replace(/\/result\.json$/, '') : p);

/** Refuses a group of fewer than two runs, a run in both groups or twice, and a group whose runs are of different specs. */
export function checkGroups(g: GroupArgs): void {
  const seen = new Map<string, string>();
  for (const [name, group] of [['A', g.a], ['B', g.b]] as const) {
    if (group.runs.length < 2) throw new UserError(`compare: group ${name} (${group.label || 'empty'}) has ${group.runs.length} run${group.runs.length === 1 ? '' : 's'}; a group needs at least 2 (its between-run spread)`);
    for (const p of group.runs) {
      const r = real(p);
      if (seen.has(r)) throw new UserError(`compare: ${p} and ${seen.get(r)} are the same run; each run belongs to one group once`);
      seen.set(r, p);
    }
    const hashes = new Map<string, string>();
    for (const p of group.runs) {
      if (!existsSync(join(p, 'result.json'))) throw new UserError(`${p}: no result.json (a group holds run directories)`);
      hashes.set(p, rowFromRunDir(dirname(p), p).spec_hash);
    }
    const distinct = [...new Set(hashes.values())];
    if (distinct.length > 1) {
      const first = group.runs[0]!;
      const other = group.runs.find((p) => hashes.get(p) !== hashes.get(first))!;
      throw new UserError(`compare: group ${name} mixes specs: ${first} is spec ${hashes.get(first)}, ${other} is spec ${hashes.get(other)}; a group repeats one spec (see \`infermeter history\`)`);
    }
  }
}

/** Checks the groups, then reads every run of both (compare-sides.ts loadSide). */
export function readGroupInputs(g: GroupArgs, warn: (line: string) => void): CompareInputs {
  checkGroups(g);
  const a = g.a.runs.map((p) => loadSide(p, warn));
  const b = g.b.runs.map((p) => loadSide(p, warn));
  return { sides: [...a, ...b], pairs: [], groups: { a: { label: g.a.label, runs: a }, b: { label: g.b.label, runs: b } } };
}
