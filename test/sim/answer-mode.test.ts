/**
 * The simulator's answer mode (docs/quality.md §Simulator answer mode): answers at set rates,
 * measured over real HTTP on 127.0.0.1 and graded by the real checks; token accounting that matches
 * the shared estimate. Deterministic: seeded draws, rates asserted within 4 standard errors.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAnswerKey } from '../../src/session/answer-key.js';
import { evaluateCheck } from '../../src/quality/evaluate.js';
import { DEFAULT_ANSWER_RATES, SIM_REFUSAL, answerTokens, chooseAnswer, type KnownAnswer } from '../../src/sim/answer-mode.js';
import { mulberry32 } from '../../src/sim/text.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { estimateCount } from '../../src/util/token-estimate.js';
import { WorkloadSpecSchema, createWorkload, type AnswerSource } from '../../src/workload/index.js';
import { postJson, postSse } from './helpers.js';

/** |observed − p| ≤ 4·sqrt(p(1−p)/n) (+1/n for p at 0 or 1). */
function expectRate(hits: number, n: number, p: number): void {
  const se = Math.sqrt((p * (1 - p)) / n);
  expect(Math.abs(hits / n - p)).toBeLessThanOrEqual(4 * se + 1 / n);
}

describe('answerTokens', () => {
  it('joins back to the text and has as many tokens as the shared estimate counts', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab xyzABC0123456789.,;:"{}[]\n\t-×°é日本'.split('')), maxLength: 200 }), (text) => {
        const t = answerTokens(text);
        expect(t.join('')).toBe(text);
        expect(t.length).toBe(estimateCount(text));
        expect(t.every((p) => p.length > 0)).toBe(true);
      }),
    );
  });
  it('cuts a long word into the pieces the estimate counts', () => {
    // "internationalization" has 20 letters: ceil(20 / 10) = 2 tokens.
    expect(answerTokens(' internationalization')).toEqual([' internati', 'onalization']);
  });
});

describe('chooseAnswer', () => {
  const known: KnownAnswer = { reference: 'R', wrong: 'W', malformed: 'M' };
  it('draws each rate independently, at its set value', () => {
    const rand = mulberry32(7);
    const n = 20_000;
    const rates = { accuracy: 0.8, jsonErrorRate: 0.1, hallucinationRate: 0, refusalRate: 0.05 };
    const counts = { reference: 0, wrong: 0, malformed: 0, refused: 0, hallucinated: 0 };
    for (let i = 0; i < n; i++) counts[chooseAnswer(known, rates, rand).choice]++;
    expectRate(counts.refused, n, 0.05);
    expectRate(counts.malformed, n, 0.95 * 0.1);
    expectRate(counts.reference, n, 0.95 * 0.9 * 0.8);
    expectRate(counts.wrong, n, 0.95 * 0.9 * 0.2);
    expect(counts.hallucinated).toBe(0);
  });
  it('unknowables: the hallucination rate decides, not the accuracy', () => {
    const rand = mulberry32(8);
    const n = 10_000;
    let hallucinated = 0;
    for (let i = 0; i < n; i++) if (chooseAnswer({ reference: 'I do not know', wrong: 'It was 7', unknowable: true }, { ...DEFAULT_ANSWER_RATES, accuracy: 0, hallucinationRate: 0.3 }, rand).choice === 'hallucinated') hallucinated++;
    expectRate(hallucinated, n, 0.3);
  });
});

describe('answer mode over HTTP, graded by the checks', () => {
  let sources: AnswerSource[];
  let server: SimServer;
  beforeAll(async () => {
    const w = await createWorkload(WorkloadSpecSchema.parse({ dataset_name: 'eval' }), { seed: 0, endpointKind: 'chat', warn: () => {} });
    // Code checks run a process each: the rates are measured on the other kinds.
    sources = w.answerSources!().filter((s) => s.check.kind !== 'code');
    server = await startSimServer({
      timing: { kind: 'fixed', prefillMs: 0, perTokenMs: 0 },
      seed: 3,
      answers: { key: buildAnswerKey(sources), rates: { accuracy: 0.7, jsonErrorRate: 0.2, hallucinationRate: 0.4, refusalRate: 0 } },
    });
  });
  afterAll(() => server.close());

  async function ask(prompt: string, stream: boolean): Promise<{ text: string; completionTokens: number; finish: string }> {
    const body = { messages: [{ role: 'user', content: prompt }], max_tokens: 512, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
    if (!stream) {
      const { json } = await postJson(`${server.url}/v1/chat/completions`, body);
      const choice = (json['choices'] as Array<{ message: { content: string }; finish_reason: string }>)[0]!;
      return { text: choice.message.content, completionTokens: (json['usage'] as { completion_tokens: number }).completion_tokens, finish: choice.finish_reason };
    }
    const r = await postSse(`${server.url}/v1/chat/completions`, body);
    let text = '';
    let completionTokens = -1;
    let finish = '';
    for (const d of r.data) {
      if (d === '[DONE]') continue;
      const ev = JSON.parse(d) as { choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage?: { completion_tokens: number } };
      for (const c of ev.choices) {
        text += c.delta.content ?? '';
        if (c.finish_reason) finish = c.finish_reason;
      }
      if (ev.usage) completionTokens = ev.usage.completion_tokens;
    }
    return { text, completionTokens, finish };
  }

  it('accuracy, malformed JSON and hallucination rates as set; usage = the estimate of the text', async () => {
    const rounds = 12;
    const tally = { answerable: 0, answerableCorrect: 0, json: 0, jsonMalformed: 0, unknowable: 0, hallucinated: 0 };
    for (let round = 0; round < rounds; round++) {
      const results = await Promise.all(sources.map(async (s, i) => ({ s, got: await ask(s.prompt, (round + i) % 2 === 0) })));
      for (const { s, got } of results) {
        expect(got.completionTokens).toBe(estimateCount(got.text));
        expect(got.finish).toBe('stop');
        const o = await evaluateCheck(s.check, got.text);
        if (s.check.kind === 'closed_book' && !s.check.answerable) {
          tally.unknowable++;
          if (o.outcome === 'hallucinated') tally.hallucinated++;
          else expect(o.outcome).toBe('abstained');
          continue;
        }
        if (s.check.kind === 'json') {
          tally.json++;
          if (o.outcome === 'malformed') {
            tally.jsonMalformed++;
            continue;
          }
        }
        tally.answerable++;
        if (o.pass) tally.answerableCorrect++;
        // Every answer is the reference or the wrong one, so the check decides exactly.
        expect(o.pass).toBe(got.text === s.reference);
      }
    }
    expectRate(tally.answerableCorrect, tally.answerable, 0.7);
    expectRate(tally.jsonMalformed, tally.json, 0.2);
    expectRate(tally.hallucinated, tally.unknowable, 0.4);
    expect(tally.answerable).toBeGreaterThan(500);
  });

  it('refusals at the refusal rate; a prompt outside the key gets filler words', async () => {
    const refusing = await startSimServer({ timing: { kind: 'fixed', prefillMs: 0, perTokenMs: 0 }, seed: 5, answers: { key: buildAnswerKey(sources), rates: { refusalRate: 0.25 } } });
    try {
      const ask2 = async (prompt: string) => {
        const { json } = await postJson(`${refusing.url}/v1/completions`, { prompt, max_tokens: 64 });
        return (json['choices'] as Array<{ text: string }>)[0]!.text;
      };
      let refused = 0;
      let n = 0;
      for (let round = 0; round < 8; round++) {
        for (const text of await Promise.all(sources.map((s) => ask2(s.prompt)))) {
          n++;
          if (text === SIM_REFUSAL) refused++;
        }
      }
      expectRate(refused, n, 0.25);
      const filler = await ask2('a prompt the key does not know');
      expect(filler).not.toBe(SIM_REFUSAL);
      expect(sources.some((s) => s.reference === filler || s.wrong === filler)).toBe(false);
    } finally {
      await refusing.close();
    }
  });

  it('an answer longer than max_tokens is cut, with finish_reason length', async () => {
    const long = sources.find((s) => estimateCount(s.reference!) > 6)!;
    const { json } = await postJson(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: long.prompt }], max_tokens: 3 });
    const choice = (json['choices'] as Array<{ finish_reason: string }>)[0]!;
    expect(choice.finish_reason).toBe('length');
    expect((json['usage'] as { completion_tokens: number }).completion_tokens).toBe(3);
  });
});
