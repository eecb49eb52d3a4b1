import { describe, expect, it } from 'vitest';
import { assessValidity, type ClientHealth } from '../../src/analysis/run-validity.js';
import { emptyRecord, type RequestRecord } from '../../src/record/record.js';

const healthy: ClientHealth = { dispatchLagMs: Float64Array.from([0.2, 0.5, 1, 1.5]), eventLoopDelayP99Ms: 11, eventLoopUtilization: 0.3, burst: false };

function rec(over: Partial<RequestRecord>): RequestRecord {
  return { ...emptyRecord(0, 0), status: 'ok', token_source: 'usage', output_tokens: 10, requested_output_tokens: 10, prompt_tokens: 100, client_prompt_tokens: 100, ...over };
}

describe('run validity', () => {
  it('a client that kept up is valid', () => {
    const v = assessValidity([rec({})], healthy, { ignoreEos: true, clientTokenizer: 'tokenizer' });
    expect(v).toMatchObject({ valid: true, reasons: [], warnings: [] });
    expect(v.checks.dispatch_lag_p99_ms).toBeCloseTo(1.485, 6); // h = 3·0.99 = 2.97 → 1 + 0.97·0.5
  });

  it('names each way the client failed to keep up', () => {
    const lagging: ClientHealth = { dispatchLagMs: Float64Array.from({ length: 100 }, (_, i) => (i < 95 ? 1 : 40)), eventLoopDelayP99Ms: 80, eventLoopUtilization: 0.97, burst: false };
    const v = assessValidity([rec({})], lagging, { ignoreEos: false, clientTokenizer: 'estimate' });
    expect(v.valid).toBe(false);
    expect(v.reasons).toHaveLength(3);
    expect(v.reasons[0]).toMatch(/fell behind its schedule: dispatch lag p99 40\.0 ms > 10 ms/);
    expect(v.reasons[1]).toMatch(/event loop saturated/);
    expect(v.reasons[2]).toMatch(/client event loop saturated: busy 97% of the time > 90%/);
  });

  it('does not blame the schedule in a burst (rate = inf), where lateness is inherent', () => {
    const burst: ClientHealth = { ...healthy, dispatchLagMs: Float64Array.from([0, 50, 100, 150]), burst: true };
    expect(assessValidity([rec({})], burst, { ignoreEos: false, clientTokenizer: 'estimate' }).valid).toBe(true);
  });

  it('warns when the server ignored ignore_eos, sent no usage, or counts prompts differently', () => {
    const records = [
      rec({ output_tokens: 7 }), // asked 10 with ignore_eos
      rec({ token_source: 'chunks' }),
      rec({ prompt_tokens: 120 }), // 20% off the client's tokenizer
      rec({ phase: 'warmup', output_tokens: 1 }), // warmup is not judged
    ];
    const v = assessValidity(records, healthy, { ignoreEos: true, clientTokenizer: 'tokenizer' });
    // Served prompts (usage records only): (100 + 120) / 2 = 110 where 100 were asked → +10% > 5%: not the asked workload.
    expect(v.valid).toBe(false);
    expect(v.reasons).toEqual([expect.stringMatching(/^prompts were served as 110 tokens on average where 100 were asked \(\+10%\).*is --tokenizer the served model’s\?$/)]);
    expect(v.checks.output_tokens_mismatched).toBe(1);
    expect(v.checks.output_counted_from_chunks).toBe(1);
    expect(v.checks.prompt_tokens_ratio).toBeCloseTo((1 + 1.2) / 2, 9); // two usage records with a client count
    expect(v.warnings).toHaveLength(3);
    // With only an estimate, the per-request tokenizer warning is not given; the served-vs-asked reason is.
    const est = assessValidity(records, healthy, { ignoreEos: true, clientTokenizer: 'estimate' });
    expect(est.warnings).toHaveLength(2);
    expect(est.reasons).toEqual([expect.stringMatching(/where 100 were asked \(\+10%\).*give --tokenizer/)]);
  });

  it('served prompt lengths: the server’s per-request overhead is allowed for; later session turns and tiny gaps are not judged', () => {
    // A chat template of 12 tokens on 200-token prompts: 212 served = 200 asked + 12.
    const chat = [rec({ prompt_tokens: 212, client_prompt_tokens: 200 }), rec({ prompt_tokens: 212, client_prompt_tokens: 200 })];
    expect(assessValidity(chat, healthy, { ignoreEos: false, clientTokenizer: 'estimate', promptOverheadTokens: 12 }).reasons).toEqual([]);
    // Without the overhead known: 212 / 200 − 1 = +6% > 5%.
    expect(assessValidity(chat, healthy, { ignoreEos: false, clientTokenizer: 'estimate' }).reasons).toHaveLength(1);
    // A later turn carries the server's own replies: not judged. 10 served for 8 asked is +25% but only 2 tokens.
    const other = [rec({ prompt_tokens: 900, client_prompt_tokens: 500, turn: 1 }), rec({ prompt_tokens: 10, client_prompt_tokens: 8, turn: 0 })];
    expect(assessValidity(other, healthy, { ignoreEos: false, clientTokenizer: 'estimate' }).reasons).toEqual([]);
  });
});
