/** Per-task and per-turn comparisons: the key latency percentiles of each group side by side. */
import type { RunMetrics } from '../../metrics/index.js';
import { baseSpec, type Chart, type Datasets } from './chart.js';

export type Groups = Array<[string, RunMetrics]>;

const FIGURES: Array<[string, (m: RunMetrics) => number | null]> = [
  ['TTFT p50', (m) => m.latency.ttft_ms.p50],
  ['TTFT p99', (m) => m.latency.ttft_ms.p99],
  ['TPOT p50', (m) => m.latency.tpot_ms.p50],
  ['TPOT p99', (m) => m.latency.tpot_ms.p99],
];

export function breakdownRows(groups: Groups): Array<{ group: string; figure: string; ms: number }> {
  const rows: Array<{ group: string; figure: string; ms: number }> = [];
  for (const [group, m] of groups) {
    for (const [figure, get] of FIGURES) {
      const v = get(m);
      if (v !== null) rows.push({ group, figure, ms: Math.round(v * 1000) / 1000 });
    }
  }
  return rows;
}

export function breakdownChart(id: 'tasks' | 'turns', title: string, groups: Groups): { chart: Chart; data: Datasets } {
  const name = `breakdown_${id}`;
  return {
    data: { [name]: breakdownRows(groups) },
    chart: {
      id: `breakdown-${id}`,
      title,
      caption: 'TTFT and TPOT percentiles of each group, over the run’s measured window (log scale).',
      datasets: [name],
      spec: {
        ...baseSpec(),
        data: { name },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: { field: 'group', type: 'nominal', title: null, axis: { labelAngle: 0 } },
          xOffset: { field: 'figure', type: 'nominal', sort: FIGURES.map(([f]) => f) },
          y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { type: 'log' } },
          color: { field: 'figure', type: 'nominal', title: null, sort: FIGURES.map(([f]) => f) },
        },
      },
    },
  };
}
