/**
 * Reasoning models end to end: the simulator's reasoning mode over real HTTP (chat, both delta
 * field names, streaming and not) and in virtual time. Assertions use the simulator's known
 * token counts and the records' own event order, never wall-clock thresholds.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import type { RequestRecord } from '../../src/record/record.js';
import { runCli, runSaved } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ recs: RequestRecord[]; result: RunResult; stdout: string }> {
  const { recs, stdout, analyzed } = await runSaved(args, dirs);
  return { recs, result: JSON.parse(analyzed.stdout) as RunResult, stdout };
}

const httpArgs = ['run', '--endpoint', '/v1/chat/completions', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '12', '--random-input-len', '32', '--random-output-len', '10', '--workers', '1'];

describe('reasoning over HTTP (built-in simulator, chat)', () => {
  it.each(['reasoning_content', 'reasoning'])('delta.%s: records time the first reasoning and answer tokens apart and count both', async (field) => {
    const { recs, result, stdout } = await run([...httpArgs, '--reasoning-tokens', '4', '--reasoning-field', field]);
    expect(recs).toHaveLength(12);
    for (const r of recs) {
      expect(r.status).toBe('ok');
      expect(r.output_tokens).toBe(10);
      expect(r.reasoning_tokens).toBe(4); // from usage.completion_tokens_details
      expect(r.chunk_ms).toHaveLength(10);
      // one SSE event per token: reasoning events 0–3, the answer from event 4 on
      expect(r.first_reasoning_ms).toBe(r.chunk_ms[0]);
      expect(r.first_answer_ms).toBe(r.chunk_ms[4]);
    }
    const z = result.metrics.reasoning!;
    expect(z.requests).toBe(12);
    expect(z.reasoning_tokens_total).toBe(48);
    expect(z.answer_tokens_total).toBe(72);
    expect(z.latency.ttfat_ms.count).toBe(12);
    expect(z.latency.ttfat_ms.min!).toBeGreaterThanOrEqual(result.metrics.latency.ttft_ms.min!);
    expect(stdout).toMatch(/First answer token \(ms\)/);
  });

  it('a share of the output, and non-streaming: the count comes from usage, the answer with the body', async () => {
    const share = await run([...httpArgs, '--reasoning-tokens', '30%']);
    for (const r of share.recs) expect(r.reasoning_tokens).toBe(3); // round(0.3 × 10)
    const whole = await run([...httpArgs, '--reasoning-tokens', '4', '--no-stream']);
    for (const r of whole.recs) {
      expect(r.reasoning_tokens).toBe(4);
      expect(r.first_reasoning_ms).toBeNull();
      expect(r.first_answer_ms).toBe(r.first_token_ms);
    }
  });

  it('without the mode, or on /v1/completions, records carry no reasoning fields and the result no section', async () => {
    const plain = await run(httpArgs);
    const text = await run([...httpArgs.filter((a) => a !== '/v1/chat/completions' && a !== '--endpoint'), '--reasoning-tokens', '4']);
    for (const { recs, result } of [plain, text]) {
      for (const r of recs) expect(r.reasoning_tokens).toBeUndefined();
      expect(result.metrics.reasoning).toBeNull();
    }
  });
});

describe('reasoning in virtual time (sim run)', () => {
  it('the same fields from the engine model; answer TPOT is the TPOT of the answer alone', async () => {
    const { recs, result } = await run(['sim', 'run', '--request-rate', '4', '--num-prompts', '30', '--random-input-len', '128', '--random-output-len', '40', '--reasoning-tokens', '25%']);
    for (const r of recs) {
      expect(r.reasoning_tokens).toBe(10);
      expect(r.first_reasoning_ms).toBe(r.first_token_ms);
      expect(r.first_answer_ms).toBe(r.chunk_ms[10]);
    }
    const z = result.metrics.reasoning!;
    expect(z.requests).toBe(30);
    expect(z.latency.ttfat_ms.p50!).toBeGreaterThan(result.metrics.latency.ttft_ms.p50!);
    expect(z.latency.reasoning_ms.count).toBe(30);
  });

  it('rejects a bad amount, naming the flag', async () => {
    const out = await runCli(['sim', 'run', '--no-save', '--reasoning-tokens', 'lots']);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--reasoning-tokens/);
  });
});
