/**
 * Overlaid CDFs: one line per group (a sweep's stages, a compare's runs) for each latency
 * metric, with the metric's SLO thresholds as rules. Each group's CDF is binned on its own
 * (data/bins.ts), so the page stays small whatever the runs' sizes.
 */
import { SLO_METRICS } from '../../metrics/index.js';
import { DISTRIBUTION_METRICS, type DistributionMetric, type MetricDistribution } from '../data/distributions.js';
import { baseSpec, SLO_RULES, sloRuleLayers, type Chart, type Datasets } from './chart.js';

export interface OverlayGroup {
  /** The legend's name of the group, e.g. "stage 2 (20 req/s)" or "A: baseline". */
  name: string;
  dists: readonly MetricDistribution[];
}

const dataset = (m: DistributionMetric): string => `cdfs_${m}`;

export function overlaidCdfDatasets(groups: readonly OverlayGroup[]): Datasets {
  const out: Datasets = {};
  for (const m of DISTRIBUTION_METRICS) {
    out[dataset(m)] = groups.flatMap((g) => (g.dists.find((d) => d.metric === m)?.cdf ?? []).map((c) => ({ ...c, group: g.name })));
  }
  return out;
}

/** The spec of one overlaid CDF; the legend lists the groups in the data's order (the spec does not depend on them). */
export function overlaidCdfChart(metric: DistributionMetric, scale: 'log' | 'linear', legend: 'stage' | 'run', caption: string): Chart {
  const label = SLO_METRICS[metric].label;
  return {
    id: `cdfs-${metric.replace(/_ms$/, '')}`,
    title: `${label} CDF per ${legend}`,
    caption,
    datasets: [dataset(metric), SLO_RULES],
    spec: {
      ...baseSpec(),
      layer: [
        {
          data: { name: dataset(metric) },
          mark: { type: 'line', tooltip: true, interpolate: 'step-after' },
          encoding: {
            x: { field: 'x', type: 'quantitative', title: `${label} (ms${scale === 'log' ? ', log scale' : ''})`, scale: scale === 'log' ? { type: 'log', nice: false } : { zero: false } },
            y: { field: 'p', type: 'quantitative', title: 'fraction ≤ x', axis: { format: '%' }, scale: { domain: [0, 1] } },
            color: { field: 'group', type: 'nominal', title: legend, sort: null, legend: { orient: 'top', columns: 3 } },
          },
        },
        ...sloRuleLayers([metric], 'x'),
      ],
    },
  };
}

/** The four overlaid CDFs of the groups, on a log axis when any group's values span a decade. */
export function overlaidCdfCharts(groups: readonly OverlayGroup[], legend: 'stage' | 'run', caption: (metric: DistributionMetric) => string): Chart[] {
  const charts: Chart[] = [];
  for (const m of DISTRIBUTION_METRICS) {
    const ds = groups.map((g) => g.dists.find((d) => d.metric === m)).filter((d) => d !== undefined && d.count > 0) as MetricDistribution[];
    if (ds.length === 0) continue;
    const scale = ds.some((d) => d.scale === 'log') ? 'log' : 'linear';
    charts.push(overlaidCdfChart(m, scale, legend, caption(m)));
  }
  return charts;
}
