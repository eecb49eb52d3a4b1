import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/metrics/index.js';
import { METRICS } from '../../src/metrics/registry.js';
import { throughputRows } from '../../src/report/throughput-rows.js';
import { rec } from '../metrics/make-record.js';

describe('throughputRows: the one throughput table', () => {
  // Two ok requests over 0 → 2000 ms: 2 / 2 s = 1 req/s; 3 + 2 = 5 output tokens / 2 s = 2.5 tok/s.
  const records = [rec({ sent_ms: 0, chunks: [100, 200, 300], prompt_tokens: 10 }), rec({ sent_ms: 1000, chunks: [1500, 2000], prompt_tokens: 20 })];

  it('takes labels and units from the registry, values from the metrics', () => {
    const rows = throughputRows(computeMetrics(records));
    const byLabel = new Map(rows.map((r) => [r.label, r]));
    for (const id of ['request_throughput', 'output_throughput', 'total_token_throughput', 'peak_concurrency']) {
      const def = METRICS.get(id)!;
      expect(byLabel.get(def.label)?.unit, id).toBe(def.unit);
    }
    expect(byLabel.get('Request throughput')!.value).toBe('1.000');
    expect(byLabel.get('Output token throughput')!.value).toBe('2.5');
    expect(byLabel.get('Total token throughput')!.value).toBe('17.5'); // (30 + 5) / 2 s
    expect(byLabel.get('Input tokens (total)')).toEqual({ label: 'Input tokens (total)', value: '30', unit: 'tokens' });
    expect(rows.some((r) => r.label.startsWith('Goodput'))).toBe(false); // no SLOs given
  });

  it('adds the goodput rows when SLOs were given', () => {
    const rows = throughputRows(computeMetrics(records, { slos: [{ metric: 'ttft_ms', threshold_ms: 150 }] }));
    // Only the first request's TTFT (100 ms) is within 150 ms: 1 good / 2 s = 0.5 req/s, 3 tokens / 2 s.
    expect(rows.slice(-2).map((r) => [r.label, r.unit, r.value])).toEqual([['Goodput', 'req/s', '0.500'], ['Goodput (output tokens)', 'tok/s', '1.5']]);
  });
});
