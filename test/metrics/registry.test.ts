import { describe, expect, it } from 'vitest';
import { itl } from '../../src/metrics/defs/itl.js';
import { tpot } from '../../src/metrics/defs/tpot.js';
import { METRICS, MetricRegistry, SLO_METRICS } from '../../src/metrics/registry.js';
import { rec } from './make-record.js';

describe('metric registry', () => {
  it('holds every metric the issue asks for, once', () => {
    const ids = METRICS.all.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [
      'ttft_ms',
      'ttft_from_schedule_ms',
      'tpot_ms',
      'itl_ms',
      'e2el_ms',
      'e2el_from_schedule_ms',
      'schedule_lag_ms',
      'request_throughput',
      'output_throughput',
      'total_token_throughput',
      'goodput',
      'peak_output_throughput',
      'peak_concurrency',
      'error_rate',
      'timeout_rate',
      'cancel_rate',
    ]) {
      expect(METRICS.get(id), id).toBeDefined();
    }
  });

  it('rejects duplicate and non-snake_case ids', () => {
    expect(() => new MetricRegistry([tpot, tpot])).toThrow(/duplicate metric id "tpot_ms"/);
    expect(() => new MetricRegistry([{ ...tpot, id: 'TPOT' }])).toThrow(/snake_case/);
  });

  it('maps every SLO metric to its registered definition', () => {
    for (const [id, def] of Object.entries(SLO_METRICS)) {
      expect(def.id).toBe(id);
      expect(METRICS.get(id)).toBe(def);
    }
  });

  it('documents every metric with a label, unit and formula', () => {
    for (const d of METRICS.all) {
      expect(d.label.length).toBeGreaterThan(0);
      expect(d.formula.length).toBeGreaterThan(0);
    }
  });

  it('evaluates TPOT from its definition', () => {
    // TPOT = (E2EL − TTFT) / (n − 1) = (250 − 50) / (5 − 1) = 50
    expect(tpot.value(rec({ sent_ms: 0, chunks: [50, 100, 150, 200, 250] }))).toBe(50);
    expect(tpot.value(rec({ sent_ms: 0, chunks: [50] }))).toBeNull();
  });

  it("ITL's per-request worst gap counts the first gap (chunk 0 → 1)", () => {
    // gaps 100, 10, 5: the largest is the first one
    expect(itl.worst(rec({ sent_ms: 0, chunks: [0, 100, 110, 115] }))).toBe(100);
    // gaps 1, 3, 2: the largest is in the middle; one chunk has no gap
    expect(itl.worst(rec({ sent_ms: 0, chunks: [10, 11, 14, 16] }))).toBe(3);
    expect(itl.worst(rec({ sent_ms: 0, chunks: [10] }))).toBeNull();
  });
});
