/**
 * The served-vs-asked prompt-length check on chat requests of several messages: the template's
 * tokens for each message after the first (pre-flight's per_message_tokens, a record's
 * prompt_messages) are not a change of the workload. Hand-computed, then end to end over HTTP
 * against the built-in simulator (CHAT_TOKENS_PER_MESSAGE per message), including `analyze`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPromptLengths, promptLengthReason } from '../../src/analysis/prompt-lengths.js';
import { CHAT_TOKENS_PER_MESSAGE } from '../../src/sim/text.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rec } from '../metrics/make-record.js';

const served = (asked: number, servedTokens: number, messages?: number) =>
  rec({ sent_ms: 0, chunks: [5], prompt_tokens: servedTokens, client_prompt_tokens: asked, token_source: 'usage', ...(messages ? { prompt_messages: messages } : {}) });

describe('checkPromptLengths: several messages (hand-computed)', () => {
  it('subtracts the per-message tokens for each message after the first', () => {
    // One single-message prompt (64 asked, 64 + 4 served) and three system + user prompts of
    // 10 asked tokens served as 10 + 4 + 4.
    const records = [served(64, 68), served(10, 18, 2), served(10, 18, 2), served(10, 18, 2)];
    // With the per-message tokens: (64 + 3·10) / (64 + 3·10) − 1 = 0.
    const withIt = checkPromptLengths(records, 4, 4)!;
    expect(withIt.deviation).toBe(0);
    expect(promptLengthReason(withIt, 0.05, 'estimate')).toBeNull();
    // Without: served (64 + 3·14) = 106 for 94 asked: +12.8%, 3 tokens a request → flagged.
    const without = checkPromptLengths(records, 4, null)!;
    expect(without.deviation).toBeCloseTo(106 / 94 - 1, 12);
    expect(promptLengthReason(without, 0.05, 'estimate')).toMatch(/served as 27 tokens on average where 24 were asked \(\+13%\)/);
  });
});

describe('chat runs against the built-in simulator', () => {
  it('system + user prompts: calibrated per message, valid, and analyze agrees', async () => {
    const dir = tempDir('prompt-lengths-chat');
    const path = join(dir, 'sys.jsonl');
    const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify({ messages: [{ role: 'system', content: 'You are a terse assistant.' }, { role: 'user', content: `Name a colour, number ${i}, please.` }], max_tokens: 4 }));
    writeFileSync(path, `${lines.join('\n')}\n`);
    const out = await runCli(['run', '--dataset-name', 'jsonl', '--dataset-path', path, '--endpoint', '/v1/chat/completions', '--num-prompts', '12', '--concurrency', '2', '--allow-invalid', '--result-dir', dir, '--name', 'chat']);
    expect(out.code, out.stderr).toBe(0);
    const runDir = join(dir, readdirSync(dir).find((d) => d.endsWith('-chat'))!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) as {
      client: { preflight: { prompt_calibration: { overhead_tokens: number; per_message_tokens: number } } };
      validity: { failed_checks: string[] };
    };
    // The probes measure the simulator's template: 4 tokens per message, the first included in the overhead.
    expect(result.client.preflight.prompt_calibration).toMatchObject({ overhead_tokens: CHAT_TOKENS_PER_MESSAGE, per_message_tokens: CHAT_TOKENS_PER_MESSAGE });
    expect(result.validity.failed_checks).not.toContain('prompt_lengths');
    const recs = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; prompt_tokens: number; client_prompt_tokens: number; prompt_messages?: number });
    const measured = recs.filter((r) => r.phase === 'measure');
    expect(measured.length).toBe(12);
    for (const r of measured) {
      expect(r.prompt_messages).toBe(2);
      expect(r.prompt_tokens - r.client_prompt_tokens).toBe(2 * CHAT_TOKENS_PER_MESSAGE);
    }
    const again = await runCli(['analyze', runDir, '--json', '--allow-invalid']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { validity: { failed_checks: string[] } }).validity.failed_checks).not.toContain('prompt_lengths');
  }, 60_000);

  it('a chat sweep: its stages are judged with the calibration too', async () => {
    const dir = tempDir('prompt-lengths-sweep');
    // 32-token prompts served as 36: +12.5% without the calibrated overhead.
    const out = await runCli(['sweep', '--request-rates', '4,8', '--num-prompts', '8', '--endpoint', '/v1/chat/completions', '--random-input-len', '32', '--random-output-len', '4', '--result-dir', dir]);
    expect([0, 5], out.stderr).toContain(out.code);
    const sweepDir = join(dir, readdirSync(dir).find((d) => d.endsWith('-sweep'))!);
    const sweep = JSON.parse(readFileSync(join(sweepDir, 'sweep.json'), 'utf8')) as { stages: Array<{ validity: { failed_checks: string[] } | null }> };
    expect(sweep.stages).toHaveLength(2);
    for (const st of sweep.stages) expect(st.validity!.failed_checks).not.toContain('prompt_lengths');
  }, 60_000);
});
