import { describe, expect, it } from 'vitest';
import { buildHeadline, loadRegime, type HeadlineFigure } from '../../src/analysis/compare/headline.js';
import { KEY_FIGURES, type FigureId } from '../../src/analysis/compare/key-figures.js';
import type { ShapeSource } from '../../src/analysis/compare/load-shape.js';

const fig = (id: FigureId, delta: number, verdict: string): HeadlineFigure => ({ figure: KEY_FIGURES.find((f) => f.id === id)!, delta, verdict });
const shape = (load: Record<string, unknown>): ShapeSource => ({ target: null, load, workload: null, input_lengths: null, output_lengths: null });

describe('compare headline', () => {
  // The case: every latency significantly worse, output tokens/s up 10% at 8 req/s offered.
  const table = [fig('ttft_p50', 1.74, 'worse'), fig('ttft_p99', 19.93, 'worse'), fig('tpot_p50', 2.1, 'worse'), fig('output_throughput', 0.1, 'better'), fig('request_throughput', 0.01, 'no significant change')];

  it('open loop below saturation: throughput is not speed, so latencies make B slower, never "faster"', () => {
    const h = buildHeadline(table, { judged: true, regime: 'open loop below saturation', offered: 8, note: null });
    expect(h.speed).toBe('slower');
    expect(h.text).toBe(
      'slower — worse: TTFT p50, TTFT p99, TPOT p50; better: Output tokens/s; biggest change: TTFT p99 +1993.0%; open loop below saturation (8 req/s offered): throughput follows the offered rate, so it is not judged as speed',
    );
    expect(h.worse).toEqual(['TTFT p50 (ms)', 'TTFT p99 (ms)', 'TPOT p50 (ms)']);
    expect(h.better).toEqual(['Output tokens/s']);
  });

  it('closed loop: throughput is a result, so better throughput with worse latency is mixed', () => {
    expect(buildHeadline(table, { judged: true, regime: 'closed loop', offered: null, note: null }).speed).toBe('mixed');
    const faster = buildHeadline([fig('output_throughput', 0.3, 'better'), fig('ttft_p50', -0.2, 'better')], { judged: true, regime: 'closed loop', offered: null, note: null });
    expect(faster.text).toMatch(/^faster — better: Output tokens\/s, TTFT p50; biggest change: Output tokens\/s \+30\.0%; closed loop/);
    // The same table in an open loop below saturation: faster from latency alone.
    expect(buildHeadline([fig('output_throughput', 0.3, 'better')], { judged: true, regime: 'open loop below saturation', offered: 8, note: null }).speed).toBeNull();
  });

  it('no verdicts: says so and names no change', () => {
    const h = buildHeadline(table, { judged: false, regime: 'unknown', offered: null, note: 'no verdict: the load shapes differ' });
    expect(h.text).toBe('no verdict (no verdict: the load shapes differ)');
    expect(h.speed).toBeNull();
  });

  it('the regime: closed, saturated when achieved < 90% of the offered rate on either side, inf is saturation', () => {
    expect(loadRegime(shape({ mode: 'closed', concurrency: 8 }), shape({ mode: 'closed', concurrency: 8 }), 10, 12)).toBe('closed loop');
    expect(loadRegime(shape({ mode: 'open', request_rate: 8 }), shape({ mode: 'open', request_rate: 8 }), 7.9, 7.3)).toBe('open loop below saturation');
    expect(loadRegime(shape({ mode: 'open', request_rate: 8 }), shape({ mode: 'open', request_rate: 8 }), 7.9, 7.1)).toBe('open loop at saturation');
    expect(loadRegime(shape({ mode: 'open', request_rate: 'inf' }), shape({ mode: 'open', request_rate: 'inf' }), 50, 60)).toBe('open loop at saturation');
    expect(loadRegime(shape({ mode: 'open', request_rate: 8 }), shape({ mode: 'closed', concurrency: 4 }), 8, 8)).toBe('unknown');
  });
});
