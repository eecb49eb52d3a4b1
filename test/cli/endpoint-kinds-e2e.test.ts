/**
 * Endpoint kinds end to end through the CLI: `run` against the built-in simulator over HTTP
 * and `sim run` in virtual time, per kind; the summary for a kind that generates nothing; the
 * refusals. Assertions use the simulator's known counts, never wall-clock thresholds.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/record/record.js';
import { runCli, runSaved } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ recs: RequestRecord[]; stdout: string; json: Record<string, unknown> }> {
  const { recs, stdout, analyzed } = await runSaved(args, dirs);
  return { recs, stdout, json: JSON.parse(analyzed.stdout) as Record<string, unknown> };
}

const http = ['run', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '12', '--random-input-len', '32', '--random-output-len', '5', '--workers', '1'];

describe('embeddings', () => {
  it('over HTTP: batches of 4, latency only; the summary says there is no TTFT/TPOT and gives inputs/s', async () => {
    const { recs, stdout, json } = await run([...http, '--endpoint-type', 'embeddings', '--batch-size', '4']);
    expect(recs).toHaveLength(12);
    for (const r of recs) {
      expect([r.status, r.inputs, r.first_token_ms, r.chunk_ms.length, r.output_tokens]).toEqual(['ok', 4, null, 0, 0]);
      expect(r.client_prompt_tokens).toBe(4 * 32);
    }
    expect(stdout).toContain('No TTFT, TPOT or ITL: these requests generate no tokens (one answer per request, its latency is E2E); 12 requests carried 48 inputs, batch size mean 4.0, max 4');
    expect(stdout).toMatch(/^Inputs +inputs\/s +\d/m);
    expect(stdout).not.toMatch(/^TTFT/m);
    expect(stdout).not.toMatch(/documents/);
    const batch = (json.metrics as { batch: { inputs_total: number; batch_size_max: number; input_unit: string } }).batch;
    expect([batch.inputs_total, batch.batch_size_max, batch.input_unit]).toEqual([48, 4, 'inputs']);
  });

  it("in virtual time with vLLM's --backend name: the same records' shape", async () => {
    const { recs, stdout } = await run(['sim', 'run', '--backend', 'openai-embeddings', '--batch-size', '2', '--request-rate', '20', '--num-prompts', '10', '--random-input-len', '64']);
    expect(recs).toHaveLength(10);
    for (const r of recs) expect([r.status, r.inputs, r.first_token_ms, r.chunk_ms.length, r.output_tokens, r.prompt_tokens]).toEqual(['ok', 2, null, 0, 0, 128]);
    expect(stdout).toContain('10 requests carried 20 inputs');
  });

  it('a TTFT or TPOT SLO is refused in one line, exit 2, before any load', async () => {
    for (const flag of [
      ['--slo', 'p95(ttft) < 1s'],
      ['--goodput', 'tpot:50'],
    ]) {
      const out = await runCli([...http, '--endpoint-type', 'embeddings', ...flag]);
      expect(out.code).toBe(2);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
      expect(out.stderr).toMatch(/embeddings requests generate no tokens, so they have no TTFT, TPOT or ITL; bound e2el/);
    }
    const batch = await runCli([...http, '--batch-size', '8']);
    expect([batch.code, batch.stderr.trim()]).toEqual([2, 'error: --batch-size 8: only embeddings, rerank and score requests carry a batch of inputs; the completions endpoint takes one prompt per request']);
    const unknown = await runCli([...http, '--endpoint-type', 'colbert']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: --endpoint-type colbert: unknown endpoint kind/);
  });
});

describe.each([
  ['responses', '/v1/responses'],
  ['anthropic', '/v1/messages'],
])('%s', (kind, path) => {
  it('over HTTP: its own path, exact usage, one chunk per token', async () => {
    const { recs, stdout } = await run([...http, '--endpoint-type', kind]);
    expect(stdout).toContain(`(${path})`);
    expect(recs).toHaveLength(12);
    for (const r of recs) expect([r.status, r.output_tokens, r.token_source, r.chunk_ms.length, r.finish_reason]).toEqual(['ok', 5, 'usage', 5, 'length']);
  });
});
