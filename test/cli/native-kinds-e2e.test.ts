/**
 * The native engine kinds end to end through the CLI: `run` against the built-in simulator over
 * HTTP (its TGI, SGLang and Triton routes) and `sim run` in virtual time. Assertions use the
 * simulator's counts, never wall-clock thresholds.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runSaved } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const http = ['run', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--request-rate', '50', '--num-prompts', '12', '--random-input-len', '32', '--random-output-len', '5', '--workers', '1'];

describe.each([
  ['tgi', '/generate_stream', 'usage'],
  ['sglang', '/generate', 'usage'],
  ['triton', '/v2/models/ensemble/generate_stream', 'chunks'],
] as const)('%s', (kind, path, source) => {
  it('over HTTP: its own path, one chunk per token, TTFT and TPOT in the summary', async () => {
    const { recs, stdout } = await runSaved([...http, '--endpoint-type', kind], dirs);
    expect(stdout).toContain(`(${path})`);
    expect(stdout).toMatch(/^TTFT/m);
    expect(recs).toHaveLength(12);
    for (const r of recs) {
      expect([r.status, r.token_source]).toEqual(['ok', source]);
      // TGI and Triton send no ignore_eos: the simulated EOS may end an answer before 5 tokens.
      expect(r.output_tokens).toBeLessThanOrEqual(5);
      expect(r.chunk_ms.length).toBe(r.output_tokens);
    }
  });

  it('in virtual time: the same records', async () => {
    const { recs } = await runSaved(['sim', 'run', '--endpoint-type', kind, '--request-rate', '20', '--num-prompts', '10', '--random-input-len', '64', '--random-output-len', '4'], dirs);
    expect(recs).toHaveLength(10);
    for (const r of recs) expect([r.status, r.chunk_ms.length]).toEqual(['ok', r.output_tokens]);
  });
});

describe.each([
  ['rerank', '/v1/rerank'],
  ['score', '/score'],
] as const)('%s', (kind, path) => {
  it('over HTTP: batches of 4 documents, latency only; the summary says there is no TTFT/TPOT and gives documents/s; a TTFT SLO is refused', async () => {
    const { recs, stdout, analyzed } = await runSaved([...http, '--endpoint-type', kind, '--batch-size', '4'], dirs);
    expect(stdout).toContain(`(${path})`);
    expect(recs).toHaveLength(12);
    for (const r of recs) expect([r.status, r.inputs, r.first_token_ms, r.chunk_ms.length, r.output_tokens]).toEqual(['ok', 4, null, 0, 0]);
    // A rerank or score request's inputs are documents: the summary, its throughput rows and result.json say so.
    expect(stdout).toContain('No TTFT, TPOT or ITL: these requests generate no tokens (one answer per request, its latency is E2E); 12 requests carried 48 documents, documents per request mean 4.0, max 4');
    expect(stdout).toMatch(/^Documents +documents\/s +\d/m);
    expect(stdout).toMatch(/^Documents \(total\) +documents +48$/m);
    expect(stdout).not.toMatch(/inputs\/s/);
    const batch = (JSON.parse(analyzed.stdout) as { metrics: { batch: { input_unit: string; inputs_total: number } } }).metrics.batch;
    expect([batch.input_unit, batch.inputs_total]).toEqual(['documents', 48]);
    const slo = await runCli([...http, '--endpoint-type', kind, '--slo', 'p95(ttft) < 1s']);
    expect([slo.code, slo.stderr.trim()]).toEqual([2, `error: --slo "p95(ttft) < 1s": ${kind} requests generate no tokens, so they have no TTFT, TPOT or ITL; bound e2el (the request's latency) instead`]);
  });

  it('in virtual time: the same records', async () => {
    const { recs } = await runSaved(['sim', 'run', '--endpoint-type', kind, '--batch-size', '2', '--request-rate', '20', '--num-prompts', '10', '--random-input-len', '64'], dirs);
    expect(recs).toHaveLength(10);
    for (const r of recs) expect([r.status, r.inputs, r.first_token_ms, r.chunk_ms.length]).toEqual(['ok', 2, null, 0]);
  });
});
