/**
 * The throughput table of a run, once: rows of label, value and unit, the labels and units from
 * the metric registry's definitions (metrics/defs/throughput.ts). The console summary, the HTML
 * report and the Markdown export render these rows; none writes its own.
 */
import type { RunMetrics } from '../metrics/run-metrics.js';
import { inputUnitOf, inputUnitTitle } from '../record/input-unit.js';
import type { RunMetricDef } from '../metrics/metric-def.js';
import * as defs from '../metrics/defs/throughput.js';

export interface FigureRow {
  label: string;
  /** The value as printed ('—' when undefined for the data). */
  value: string;
  unit: string;
}

/** The table's column heads, in order: label, unit, value. */
export const THROUGHPUT_HEAD = ['Throughput', 'unit', 'value'] as const;

const fixed = (v: number | null, digits: number): string => (v === null ? '—' : v.toFixed(digits));
const row = (def: Pick<RunMetricDef, 'label' | 'unit'>, v: number | null, digits: number): FigureRow => ({ label: def.label, value: fixed(v, digits), unit: def.unit });

/**
 * The rows: throughputs and peaks, token totals, and goodput when SLOs were given. Batched
 * requests that generate nothing (embeddings, `m.batch`) have inputs instead of output tokens.
 */
export function throughputRows(m: RunMetrics): FigureRow[] {
  const t = m.throughput;
  const b = m.batch;
  if (b) {
    const unit = inputUnitOf(m);
    return [
      row(defs.requestThroughput, t.request_per_s, 3),
      { label: inputUnitTitle(unit), value: fixed(b.inputs_per_s, 1), unit: `${unit}/s` },
      { label: 'Input tokens', value: fixed(b.input_tokens_per_s, 1), unit: 'tok/s' },
      row(defs.peakConcurrency, t.peak_concurrency, 0),
      { label: `${inputUnitTitle(unit)} (total)`, value: String(b.inputs_total), unit },
      { label: 'Input tokens (total)', value: String(m.tokens.input_total), unit: 'tokens' },
    ];
  }
  const rows: FigureRow[] = [
    row(defs.requestThroughput, t.request_per_s, 3),
    row(defs.outputThroughput, t.output_tokens_per_s, 1),
    row(defs.totalTokenThroughput, t.total_tokens_per_s, 1),
    { ...row(defs.peakOutputThroughput, t.peak_output_tokens_per_s, 0), label: `${defs.peakOutputThroughput.label} (1 s)` },
    row(defs.peakConcurrency, t.peak_concurrency, 0),
    { label: 'Input tokens (total)', value: String(m.tokens.input_total), unit: 'tokens' },
    { label: 'Output tokens (total)', value: String(m.tokens.output_total), unit: 'tokens' },
  ];
  if (m.goodput) rows.push(row(defs.goodput, m.goodput.request_per_s, 3), row(defs.goodputOutputThroughput, m.goodput.output_tokens_per_s, 1));
  return rows;
}

/** The rows as cells, for a renderer's table function. */
export function throughputCells(m: RunMetrics): string[][] {
  return throughputRows(m).map((r) => [r.label, r.unit, r.value]);
}
