/**
 * Prints the fidelity table of docs/simulator.md §Fidelity and its median-error table from the
 * same functions the test asserts with (runCase, medianErrors), so the docs are regenerated, not
 * retyped: `npx tsx test/sim/fidelity/print-table.ts`.
 */
import { modelProfile } from '../../../src/sim/index.js';
import { CASES } from './cases.js';
import type { FidelityCase } from './cases.js';
import { medianErrors, runCase, type CaseResult } from './run-case.js';

/** Throughput in tok/s to 0.1; times in ms to 0.1 from 100 ms up, else to 0.01. */
const fmt = (x: number, r: CaseResult): string => (r.figure === 'throughput' ? `${x.toFixed(1)} tok/s` : `${x.toFixed(x >= 100 ? 1 : 2)} ms`);

function setup(c: FidelityCase): string {
  const engine = c.preset ?? 'vllm-v1';
  if (c.kind === 'closed') return `${c.input} in / ${c.output} out, concurrency ${c.concurrency}; ${engine}`;
  const tokensIn = c.input_lens.reduce((a, b) => a + b, 0);
  const tokensOut = c.output_lens.reduce((a, b) => a + b, 0);
  const uniform = c.input_lens.every((x) => x === c.input_lens[0]) && c.output_lens.every((x) => x === c.output_lens[0]);
  if (c.source === 'trtllm-perf') return `offline, ${c.input_lens.length} × (${c.input_lens[0]} in / ${c.output_lens[0]} out) at once; ${engine}`;
  if (uniform && c.source !== 'vllm-ci') return `burst of ${c.input_lens.length} × (${c.input_lens[0]} in / ${c.output_lens[0]} out); ${engine}`;
  if (c.source === 'vllm-ci') return `offline batch of ${c.input_lens.length} × (${c.input_lens[0]} in / ${c.output_lens[0]} out); ${engine}`;
  return `ShareGPT burst of ${c.input_lens.length} (Σ ${tokensIn} in / ${tokensOut} out); ${engine}`;
}

function modelCell(c: FidelityCase): string {
  const m = modelProfile(c.model);
  return typeof c.model === 'string' ? `${m.id}, ${c.precision}` : `${m.name}, ${c.precision}`;
}

const rows: string[] = [];
const all: CaseResult[] = [];
for (const c of CASES) {
  for (const r of runCase(c)) {
    all.push(r);
    const set = r.held_out ? 'held out' : 'fit';
    rows.push(`| ${c.id} | ${c.source} | ${set} | ${c.hardware} × ${c.gpus} | ${modelCell(c)} | ${setup(c)} | ${r.figure} (${r.stat}) | ${fmt(r.measured, r)} | ${fmt(r.simulated, r)} | ${r.ratio.toFixed(2)} |`);
  }
}

console.log('| case | source | set | GPU × n | model, precision | setup; engine | figure | measured | simulated | ratio |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);

const pct = (x: number | undefined): string => (x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);
const fit = medianErrors(all.filter((r) => !r.held_out));
const held = medianErrors(all.filter((r) => r.held_out));
const every = medianErrors(all);
console.log('');
console.log(`${all.length} measurements (${all.filter((r) => !r.held_out).length} fitting, ${all.filter((r) => r.held_out).length} held out) over ${CASES.length} setups`);
console.log('');
console.log('| figure | fitting rows | held-out rows | all |');
console.log('|---|---|---|---|');
for (const [k, name] of [['ttft', 'TTFT'], ['tpot', 'TPOT / ITL'], ['throughput', 'throughput'], ['all', 'all']] as const) {
  console.log(`| ${name} | **${pct(fit[k])}** | **${pct(held[k])}** | ${pct(every[k])} |`);
}

// Per source and per engine measured (docs/simulator.md §Fidelity reports both).
console.log('');
console.log('| group | measurements | TTFT | TPOT / ITL | throughput | all |');
console.log('|---|---|---|---|---|---|');
const groups = new Map<string, CaseResult[]>();
const caseOf = new Map(CASES.map((c) => [c.id, c]));
for (const r of all) {
  const c = caseOf.get(r.id)!;
  const round4 = c.source === 'trtllm-perf' || c.source === 'gpustack-14b' ? ['round 4 (held out)'] : [];
  for (const g of [...round4, `source ${c.source}${r.held_out ? ' (held out)' : ''}`, `engine ${c.preset ?? 'vllm-v1'}${r.held_out ? ' (held out)' : ' (fitting)'}`]) {
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(r);
  }
}
for (const [g, rs] of [...groups.entries()].sort()) {
  const e = medianErrors(rs);
  console.log(`| ${g} | ${rs.length} | ${pct(e['ttft'])} | ${pct(e['tpot'])} | ${pct(e['throughput'])} | ${pct(e['all'])} |`);
}
