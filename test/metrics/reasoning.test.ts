import { describe, expect, it } from 'vitest';
import { computeMetrics, METRICS } from '../../src/metrics/index.js';
import { answerTpot, reasoningDuration, ttfat } from '../../src/metrics/defs/reasoning.js';
import { recordFromJsonLine, recordToJsonLine } from '../../src/record/jsonl.js';
import { rec } from './make-record.js';

describe('reasoning metrics', () => {
  // Sent at 100; reasoning events at 130, 140, 150; answer events at 160, 170, 180, 190 (end 190).
  // 7 output tokens, 3 of them reasoning → 4 answer tokens.
  const thinker = () =>
    rec({ sent_ms: 100, chunks: [130, 140, 150, 160, 170, 180, 190], first_reasoning_ms: 130, first_answer_ms: 160, reasoning_tokens: 3 });

  it('hand-computed: TTFAT, reasoning duration and answer TPOT', () => {
    const r = thinker();
    expect(ttfat.value(r)).toBe(60); // 160 − 100
    expect(reasoningDuration.value(r)).toBe(30); // 160 − 130
    expect(answerTpot.value(r)).toBe(10); // (190 − 160) / (4 − 1)
  });

  it('a record without reasoning: TTFAT = TTFT, answer TPOT = TPOT, no reasoning duration', () => {
    const r = rec({ sent_ms: 0, chunks: [20, 30, 40] });
    expect(ttfat.value(r)).toBe(20);
    expect(reasoningDuration.value(r)).toBeNull();
    expect(answerTpot.value(r)).toBe(10); // (40 − 20) / 2
  });

  it('no answer after the reasoning (truncated): TTFAT undefined and failing an SLO, the rest undefined', () => {
    const r = rec({ sent_ms: 0, chunks: [20, 30], first_reasoning_ms: 20, first_answer_ms: null, reasoning_tokens: 2 });
    expect(ttfat.value(r)).toBeNull();
    expect(ttfat.sloWhenUndefined).toBe('fails');
    expect(reasoningDuration.value(r)).toBeNull();
    expect(answerTpot.value(r)).toBeNull();
  });

  it('hidden reasoning (usage only): TTFAT = first token, answer TPOT over the answer tokens', () => {
    const r = rec({ sent_ms: 0, chunks: [50, 60, 70], output_tokens: 13, first_reasoning_ms: null, first_answer_ms: 50, reasoning_tokens: 10 });
    expect(ttfat.value(r)).toBe(50);
    expect(reasoningDuration.value(r)).toBeNull();
    expect(answerTpot.value(r)).toBe(10); // (70 − 50) / (3 − 1)
  });

  it('the run has a reasoning section only when a measured ok request reasoned; counts add up', () => {
    const plain = computeMetrics([rec({ sent_ms: 0, chunks: [20, 30, 40] })]);
    expect(plain.reasoning).toBeNull();
    const m = computeMetrics([thinker(), rec({ sent_ms: 0, chunks: [20, 30, 40] }), rec({ phase: 'warmup', sent_ms: 0, chunks: [1, 2], first_reasoning_ms: 1, first_answer_ms: 2, reasoning_tokens: 1 })]);
    expect(m.reasoning?.requests).toBe(1);
    expect(m.reasoning?.reasoning_tokens_total).toBe(3);
    expect(m.reasoning?.answer_tokens_total).toBe(4 + 3);
    expect(m.reasoning?.latency.ttfat_ms.count).toBe(2);
    expect(m.reasoning?.latency.ttfat_ms.min).toBe(20);
    expect(m.reasoning?.latency.ttfat_ms.max).toBe(60);
    expect(m.reasoning?.latency.reasoning_ms.count).toBe(1);
  });

  it('is registered once per metric, under stable ids', () => {
    for (const id of ['ttfat_ms', 'reasoning_ms', 'answer_tpot_ms']) expect(METRICS.get(id)?.kind).toBe('request');
  });

  it('records.jsonl keeps the reasoning fields (and leaves them out when there was none)', () => {
    const back = recordFromJsonLine(recordToJsonLine(thinker()));
    expect(back.first_reasoning_ms).toBe(130);
    expect(back.first_answer_ms).toBe(160);
    expect(back.reasoning_tokens).toBe(3);
    const line = recordToJsonLine(rec({ sent_ms: 0, chunks: [1] }));
    expect(line).not.toMatch(/reasoning|first_answer/);
    expect('reasoning_tokens' in recordFromJsonLine(line)).toBe(false);
    const hidden = recordFromJsonLine(recordToJsonLine(rec({ sent_ms: 0, chunks: [5], first_reasoning_ms: null, first_answer_ms: 5, reasoning_tokens: 4 })));
    expect(hidden.first_reasoning_ms).toBeNull();
    expect(hidden.reasoning_tokens).toBe(4);
  });
});
