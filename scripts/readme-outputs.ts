/**
 * The outputs the README shows, made by running their commands (`npm run readme:outputs`).
 * Each shown output sits in the fenced block after a `<!-- readme-output: ID -->` line; BLOCKS
 * below says which command makes it and which of its lines the README keeps (a gap becomes `…`).
 *
 *   npx tsx scripts/readme-outputs.ts                 # rewrite every block from fresh runs
 *   npx tsx scripts/readme-outputs.ts --only plan     # one block (IDs: comma-separated)
 *   npx tsx scripts/readme-outputs.ts --check         # exit 1 when a block drifted from a fresh run
 *   npx tsx scripts/readme-outputs.ts --check --deterministic   # only the virtual-time blocks (what the test runs)
 *
 * Deterministic blocks (virtual time, fixed seed) must match a fresh run line for line; the others
 * (real time: their figures move from run to run) must match in shape — the same lines with every
 * number replaced — so a renamed column, a new line or a reworded verdict shows up, a figure does not.
 * A real-time block is made on a quiet machine: run the script there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runCli } from '../test/helpers/cli.js';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** A run of output lines: from the first line matching `from` (after the previous range) to the first matching `to`. */
interface Range {
  from: RegExp;
  to?: RegExp;
  /** Rewrites each kept line (e.g. shortens a long one). */
  edit?: (line: string) => string;
}

export interface ReadmeBlock {
  id: string;
  /** The command as the README shows it (after `npx infermeter`). */
  argv: string[];
  /** Added when running it, not shown: e.g. --no-save, so no run directory is printed or left. */
  hidden: string[];
  /** Virtual time with a fixed seed: the same output on every machine. */
  deterministic: boolean;
  /** The `$ npx infermeter …` line heads the block. */
  showCommand: boolean;
  /** The lines kept, in order; absent: the whole output. */
  ranges?: Range[];
}

const upTo = (re: RegExp) => (line: string) => {
  const m = re.exec(line);
  return m ? `${line.slice(0, m.index)}; …` : line;
};

export const BLOCKS: ReadmeBlock[] = [
  {
    id: 'quickstart',
    argv: ['run', '--num-prompts', '100'],
    hidden: ['--no-save', '--progress', 'none'],
    deterministic: false,
    showCommand: false,
    ranges: [{ from: /^== infermeter run/, to: /^Output token throughput/ }, { from: /^Run validity:/, to: /^Run validity:/ }],
  },
  {
    id: 'server-side',
    argv: ['run', '--num-prompts', '60', '--request-rate', '20', '--no-save'],
    hidden: ['--progress', 'none'],
    deterministic: false,
    showCommand: false,
    ranges: [{ from: /^Server side/ }],
  },
  {
    id: 'sim-sweep-auto',
    argv: ['sim', 'sweep', '--hardware', 'h100', '--model', 'llama-3.1-8b', '--auto', '8'],
    hidden: ['--no-save'],
    deterministic: true,
    showCommand: true,
  },
  {
    id: 'sweep-search',
    argv: ['sim', 'sweep', '--search', '--slo', 'p95(ttft) < 1.5s', '--slo', 'p95(tpot) < 80ms'],
    hidden: ['--no-save'],
    deterministic: true,
    showCommand: true,
  },
  {
    id: 'plan',
    argv: ['plan', '--traffic', '50rps', '--slo', 'p95(ttft) < 1.5s', '--slo', 'p95(tpot) < 80ms', '--hardware', 'h100,h200', '--model', 'llama-3.1-8b', '--gpu-hour-cost', '3'],
    hidden: [],
    deterministic: true,
    showCommand: false,
    ranges: [
      { from: /^-- h100/, to: /^-- h100/ },
      { from: /^ {2}rate \(req\/s\)/, to: /^ {2}rate \(req\/s\)/, edit: upTo(/; first failure/) },
      { from: /^sustainable rate/, to: /^longest output/ },
      { from: /^Options ranked/, to: /^2 / },
    ],
  },
];

const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** Runs the block's command in this process and returns the lines the README shows. */
export async function renderBlock(b: ReadmeBlock): Promise<string> {
  // An empty environment: no OPENAI_API_KEY or other setting of this shell changes what the README shows.
  const { code, stdout, stderr } = await runCli([...b.argv, ...b.hidden], {});
  if (code !== 0 && code !== 3) {
    const quiet = code === 5 && !b.deterministic ? ' (a real-time block needs a quiet machine: its run came out invalid here)' : '';
    throw new Error(`${b.id}: infermeter ${b.argv.join(' ')} exited ${code}${quiet}:\n${stderr}`);
  }
  const lines = stdout.replace(/\n+$/, '').split('\n');
  const kept = b.ranges ? pick(lines, b.ranges, b.id) : lines;
  return [...(b.showCommand ? [`$ npx infermeter ${b.argv.map(shellWord).join(' ')}`] : []), ...kept].join('\n');
}

function pick(lines: string[], ranges: Range[], id: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (const r of ranges) {
    const start = lines.findIndex((l, i) => i >= at && r.from.test(l));
    if (start < 0) throw new Error(`${id}: no output line matches ${r.from}`);
    const end = r.to ? lines.findIndex((l, i) => i >= start && r.to!.test(l)) : lines.length - 1;
    if (end < 0) throw new Error(`${id}: no output line matches ${r.to}`);
    if (start > at && out.length > 0) out.push('…');
    out.push(...lines.slice(start, end + 1).map(r.edit ?? ((l) => l)));
    at = end + 1;
  }
  if (at < lines.length) out.push('…');
  return out;
}

/** Where block `id`'s text sits in the README: the fenced block after its marker line. */
export function locateBlock(readme: string, id: string): { start: number; end: number; text: string } {
  const marker = `<!-- readme-output: ${id} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const open = readme.indexOf('```', at);
  const start = readme.indexOf('\n', open) + 1;
  const end = readme.indexOf('\n```', start - 1);
  if (open < 0 || start <= 0 || end < 0) throw new Error(`README.md: no fenced block after ${marker}`);
  return { start, end: end + 1, text: readme.slice(start, end + 1).replace(/\n$/, '') };
}

/** A real-time output's shape: every number (and a run of padding) replaced, so figures may move and the words may not. */
export function shape(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/[-+]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?/gi, '#').replace(/\s+/g, ' ').trim())
    .join('\n');
}

/** Whether the README's text of `b` agrees with `fresh`: exactly, or in shape for a real-time block. */
export function agrees(b: ReadmeBlock, shown: string, fresh: string): boolean {
  return b.deterministic ? shown === fresh : shape(shown) === shape(fresh);
}

async function cli(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, only: { type: 'string' }, deterministic: { type: 'boolean', default: false } } });
  const only = values.only ? new Set(values.only.split(',')) : null;
  const unknown = only ? [...only].filter((id) => !BLOCKS.some((b) => b.id === id)) : [];
  if (unknown.length) {
    console.error(`--only: no block ${unknown.join(', ')} (blocks: ${BLOCKS.map((b) => b.id).join(', ')})`);
    return 2;
  }
  const chosen = BLOCKS.filter((b) => (!only || only.has(b.id)) && (!values.deterministic || b.deterministic));
  let readme = readFileSync(README, 'utf8');
  let drifted = 0;
  for (const b of chosen) {
    console.error(`readme-outputs: ${b.id}: npx infermeter ${b.argv.map(shellWord).join(' ')}`);
    const fresh = await renderBlock(b);
    const at = locateBlock(readme, b.id);
    if (values.check) {
      if (!agrees(b, at.text, fresh)) {
        drifted++;
        console.error(`readme-outputs: ${b.id} drifted; a fresh run prints:\n${fresh}`);
      }
    } else readme = `${readme.slice(0, at.start)}${fresh}\n${readme.slice(at.end)}`;
  }
  if (values.check) {
    console.error(drifted ? `readme-outputs: ${drifted} block(s) drifted: run npm run readme:outputs` : `readme-outputs: ${chosen.length} block(s) agree`);
    return drifted ? 1 : 0;
  }
  writeFileSync(README, readme);
  console.error(`readme-outputs: wrote ${chosen.length} block(s) into README.md`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    process.exitCode = await cli();
  } catch (err) {
    console.error(`readme-outputs: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
