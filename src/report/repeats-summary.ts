/** The console summary of a repeat directory (`run --repeat N`): each run's verdict, then each figure over the runs. */
import { KEY_FIGURES } from '../analysis/compare/key-figures.js';
import { textTable } from '../util/text-table.js';
import type { RepeatsFile } from './repeats-json.js';

const num = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));

export function renderRepeatsSummary(file: RepeatsFile, dir: string): string {
  const runs = textTable(
    ['repeat', 'seed', 'verdict'],
    file.runs.map((r) => [r.dir, String(r.seed), r.interrupted ? 'interrupted' : r.valid === false ? `invalid: ${r.reasons[0] ?? ''}` : r.slo_pass === false ? 'valid, an SLO failed' : 'valid']),
    { leftColumns: 1 },
  );
  const rows = KEY_FIGURES.filter((f) => file.figures[f.id]).map((f) => {
    const s = file.figures[f.id]!;
    const pct = (x: number) => (f.id === 'error_rate' ? `${(x * 100).toFixed(2)}%` : num(x));
    return [f.label, pct(s.mean), s.sd === null ? '—' : pct(s.sd), s.sd === null || s.mean === 0 ? '—' : `${((s.sd / Math.abs(s.mean)) * 100).toFixed(1)}%`, s.ci ? `[${pct(s.ci[0])}, ${pct(s.ci[1])}]` : '—', String(s.n)];
  });
  const level = `${Math.round((file.figures.ttft_p50?.confidence ?? 0.95) * 100)}%`;
  return [
    `infermeter ${file.driver === 'virtual' ? 'sim run' : 'run'} --repeat ${file.repeats_asked}: ${file.runs.length} run${file.runs.length === 1 ? '' : 's'} of spec ${file.spec_hash ?? '?'}`,
    '',
    runs,
    '',
    rows.length > 0 ? textTable(['Figure', 'mean', 'sd', 'cv', `${level} interval of the mean`, 'runs'], rows, { leftColumns: 1 }) : 'No figures over runs: no run was valid and uninterrupted.',
    '',
    `Over the ${file.runs_in_figures} valid, uninterrupted runs; sd: between runs; the interval: t with runs − 1 degrees of freedom (docs/repeats.md).`,
    `Repeat directory: ${dir} (repeats.json; compare it with another: infermeter compare ${dir} OTHER_REPEAT_DIR)`,
  ].join('\n');
}
