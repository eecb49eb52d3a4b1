/**
 * Latency distributions: a histogram and a CDF per metric, from pre-binned data
 * (data/bins.ts), on a log axis when the values span a decade or more.
 */
import type { MetricDistribution } from '../data/distributions.js';
import { baseSpec, SLO_RULES, sloRuleLayers, type Chart, type Datasets } from './chart.js';

export function distributionDatasets(dists: readonly MetricDistribution[]): Datasets {
  const out: Datasets = {};
  for (const d of dists) {
    out[`hist_${d.metric}`] = d.bins;
    out[`cdf_${d.metric}`] = d.cdf;
  }
  return out;
}

export function distributionCharts(dists: readonly MetricDistribution[]): Chart[] {
  const charts: Chart[] = [];
  for (const d of dists) {
    if (d.count === 0) continue;
    const scale = d.scale === 'log' ? { type: 'log' as const, nice: false } : { zero: false };
    const axisTitle = `${d.label} (ms${d.scale === 'log' ? ', log scale' : ''})`;
    const below = d.at_or_below_zero > 0 ? ` ${d.at_or_below_zero} values of 0 ms (chunks read together) are left off the log axis and start the CDF.` : '';
    const unit = d.metric === 'itl_ms' ? 'gaps between consecutive chunks, pooled over requests' : 'requests';
    charts.push({
      id: `hist-${d.metric.replace(/_ms$/, '')}`,
      title: `${d.label} histogram`,
      caption: `${d.count} ${unit} (measure phase, ok), in ${d.bins.length} bins.${below}`,
      datasets: [`hist_${d.metric}`, SLO_RULES],
      spec: {
        ...baseSpec(),
        layer: [
          {
            data: { name: `hist_${d.metric}` },
            // Pre-binned: a rect per bin from lo to hi and from 0 to its count.
            mark: { type: 'rect', color: '#4c78a8', stroke: '#fff', strokeWidth: 0.5, tooltip: true },
            encoding: {
              x: { field: 'lo', type: 'quantitative', title: axisTitle, scale },
              x2: { field: 'hi' },
              y: { field: 'count', type: 'quantitative', title: d.metric === 'itl_ms' ? 'gaps' : 'requests' },
              y2: { datum: 0 },
            },
          },
          ...sloRuleLayers([d.metric], 'x'),
        ],
      },
    });
    charts.push({
      id: `cdf-${d.metric.replace(/_ms$/, '')}`,
      title: `${d.label} CDF`,
      caption: `Fraction of the ${d.count} ${unit} at or below each value.${below}`,
      datasets: [`cdf_${d.metric}`, SLO_RULES],
      spec: {
        ...baseSpec(),
        layer: [
          {
            data: { name: `cdf_${d.metric}` },
            mark: { type: 'line', color: '#4c78a8', tooltip: true },
            encoding: {
              x: { field: 'x', type: 'quantitative', title: axisTitle, scale },
              y: { field: 'p', type: 'quantitative', title: 'fraction ≤ x', axis: { format: '%' }, scale: { domain: [0, 1] } },
            },
          },
          ...sloRuleLayers([d.metric], 'x'),
        ],
      },
    });
  }
  return charts;
}
