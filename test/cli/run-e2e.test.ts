/**
 * End to end over real HTTP on 127.0.0.1: the CLI drives the simulated engine in fixed-delay
 * mode, whose known delays bound the measured TTFT and TPOT.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const PREFILL_MS = 30;
const PER_TOKEN_MS = 4;
const OUTPUT_LEN = 16;

function onlyRunDir(resultDir: string): string {
  // Run directories only: the results folder also holds the run history (history.duckdb).
  const dirs = readdirSync(resultDir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  expect(dirs).toHaveLength(1);
  return join(resultDir, dirs[0]!);
}

describe('infermeter run (built-in simulator, fixed delays)', () => {
  let resultDir: string;
  let result: RunResult;
  let stdout: string;
  let vllmFile: string;
  let hrtimeBefore = 0n;
  let hrtimeAfter = 0n;

  beforeAll(async () => {
    resultDir = tempDir('e2e');
    const vllmPath = join(tempDir('vllm'), 'vllm.json');
    vllmFile = vllmPath;
    hrtimeBefore = process.hrtime.bigint();
    const out = await runCli([
      'run',
      '--sim-prefill-ms', String(PREFILL_MS),
      '--sim-per-token-ms', String(PER_TOKEN_MS),
      '--num-prompts', '24',
      '--request-rate', '40',
      '--warmup', '2',
      '--random-input-len', '64',
      '--random-output-len', String(OUTPUT_LEN),
      '--goodput', 'ttft:20s', 'tpot:5s', // met on any machine: the SLO arithmetic is checked, not the speed
      '--result-dir', resultDir,
      '--vllm-json', vllmPath,
      '--progress', 'none',
      '--name', 'e2e',
    ]);
    expect(out.stderr).toContain('pre-flight ok');
    expectCompleted(out);
    stdout = out.stdout;
    result = JSON.parse(readFileSync(join(onlyRunDir(resultDir), 'result.json'), 'utf8')) as RunResult;
    hrtimeAfter = process.hrtime.bigint();
  });

  it('opens about a second of arrivals’ worth of connections before t = 0, no more than the run has requests', () => {
    expect(result.client['preconnected']).toBe(24); // --request-rate 40 (no concurrency cap) wants 40; the run has 24 requests
  });

  it('reports the sending threads’ event-loop utilization under its own name, in client and validity', () => {
    expect(result.schema).toBe('infermeter.result/3');
    const elu = result.client['event_loop_utilization'] as number;
    expect(elu).toBeGreaterThan(0);
    expect(elu).toBeLessThanOrEqual(1);
    expect(result.validity!.checks.client_event_loop_utilization).toBe(elu);
    expect(result.validity!.checks).not.toHaveProperty('client_cpu_fraction');
  });

  it('states t = 0 on the host monotonic clock, between the run’s start and end', () => {
    // runCli runs the CLI in this process: the same clock, so the origin lies inside the call
    const origin = BigInt(result.run.monotonic_origin_ns!);
    expect(origin > hrtimeBefore && origin < hrtimeAfter).toBe(true);
    // the last record ended before the CLI returned
    const lastEndNs = origin + BigInt(Math.round(result.metrics.end_ms! * 1e6));
    expect(lastEndNs < hrtimeAfter).toBe(true);
  });

  it('prints the summary table', () => {
    expect(stdout).toMatch(/TTFT \(ms\)/);
    expect(stdout).toMatch(/Output token throughput +tok\/s/);
    expect(stdout).toMatch(/Goodput/);
    // VALID on a quiet machine; a loaded one (parallel test files) may rightly say INVALID with reasons.
    expect(stdout).toMatch(/Run validity: (VALID|INVALID — [^\n]*\n {2}- client)/);
    if (process.env.SHOW_VALIDITY) console.log(stdout);
  });

  it('measures only the measure phase, all ok, with exact usage counts', () => {
    const m = result.metrics;
    expect(m.requests.total).toBe(22);
    expect(m.requests.ok).toBe(22);
    expect(m.tokens.output_total).toBe(22 * OUTPUT_LEN);
    expect(m.tokens.token_sources.usage).toBe(22);
  });

  it('TTFT and E2EL are at least the simulator’s known delays', () => {
    const { ttft_ms, e2el_ms } = result.metrics.latency;
    // Physics: the request leaves before the server sees it, the server waits PREFILL_MS before
    // the first token and PER_TOKEN_MS between tokens, and the client reads each after it was
    // written. (TPOT has no such floor: a first token read late shortens the gaps after it.)
    // How far above these a loaded machine lands: test/timing/client-latency.timing.test.ts.
    expect(ttft_ms.min!, 'TTFT min').toBeGreaterThanOrEqual(PREFILL_MS - 0.01); // 0.01: stored times are rounded to 1 µs
    expect(e2el_ms.min!, 'E2EL min').toBeGreaterThanOrEqual(PREFILL_MS + (OUTPUT_LEN - 1) * PER_TOKEN_MS - 0.01);
    expect(result.metrics.goodput!.good).toBe(22);
  });

  it('writes records.jsonl with one line per request, and spec.json', () => {
    const dir = onlyRunDir(resultDir);
    const lines = readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(24);
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    for (const field of ['id', 'phase', 'scheduled_ms', 'sent_ms', 'first_token_ms', 'chunk_ms', 'end_ms', 'prompt_tokens', 'output_tokens', 'token_source', 'status']) {
      expect(rec).toHaveProperty(field);
    }
    expect((rec.chunk_ms as number[]).length).toBe(OUTPUT_LEN);
    const spec = JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) as { load: { num_prompts: number } };
    expect(spec.load.num_prompts).toBe(24);
  });

  it('--vllm-json uses the keys of vllm bench serve --save-result', () => {
    const v = JSON.parse(readFileSync(vllmFile, 'utf8')) as Record<string, number>;
    expect(v.completed).toBe(22);
    expect(v.total_output_tokens).toBe(22 * OUTPUT_LEN);
    expect(v.mean_ttft_ms).toBeCloseTo(result.metrics.latency.ttft_ms.mean!, 6);
    expect(v.p99_tpot_ms).toBeCloseTo(result.metrics.latency.tpot_ms.p99!, 6);
    expect(v.request_throughput).toBeCloseTo(result.metrics.throughput.request_per_s!, 6);
    // No --tokenizer: no tokenizer counted the prompts, so none is named (vLLM would name the model's).
    expect(v.model_id).toBe(result.target.model);
    expect(v.tokenizer_id).toBeNull();
  });

  it('--percentile-metrics / --metric-percentiles / --label shape the vLLM JSON as vLLM would', async () => {
    const dir = onlyRunDir(resultDir);
    const path = join(tempDir('vllm2'), 'v.json');
    const out = await runCli(['analyze', dir, '--vllm-json', path, '--percentile-metrics', 'ttft,e2el', '--metric-percentiles', '90,99', '--label', 'nightly']);
    expectCompleted(out);
    const v = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(v.label).toBe('nightly');
    expect(v).toHaveProperty('p90_ttft_ms');
    expect(v).toHaveProperty('p99_e2el_ms');
    expect(v).not.toHaveProperty('p99_tpot_ms');
    expect(v).not.toHaveProperty('p50_ttft_ms');
    const bad = await runCli(['analyze', dir, '--vllm-json', path, '--metric-percentiles', '100']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--metric-percentiles: "100": a percentile is a number greater than 0 and less than 100/);
  });

  it('analyze recomputes the same figures from the records alone, and takes new SLOs', async () => {
    const dir = onlyRunDir(resultDir);
    const again = await runCli(['analyze', dir, '--json']);
    expectCompleted(again);
    const r = JSON.parse(again.stdout) as RunResult;
    // Times are stored rounded to 1 µs, so a difference of two times is off by at most 0.001 ms.
    const within = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(0.0010001);
    within(r.metrics.latency.ttft_ms.mean!, result.metrics.latency.ttft_ms.mean!);
    within(r.metrics.latency.itl_ms.p99!, result.metrics.latency.itl_ms.p99!);
    // Rates divide by a duration also rounded to 1 µs: equal to a relative 1e-5.
    const rel = (a: number, b: number) => Math.abs(a - b) / b;
    expect(rel(r.metrics.throughput.output_tokens_per_s!, result.metrics.throughput.output_tokens_per_s!)).toBeLessThan(1e-5);
    expect(r.metrics.requests.total).toBe(22);
    // Without --goodput, the run's own SLOs are applied again.
    expect(r.metrics.goodput!.slos).toEqual(result.metrics.goodput!.slos);
    expect(r.metrics.goodput!.good).toBe(result.metrics.goodput!.good);
    const strict = await runCli(['analyze', join(dir, 'records.jsonl'), '--goodput', 'ttft:1', '--json']);
    expect((JSON.parse(strict.stdout) as RunResult).metrics.goodput!.good).toBe(0);
  });
});

describe('infermeter run against a server given by --base-url', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 }, dialect: 'llamacpp', modelName: 'served-model' });
  });
  afterAll(() => sim.close());

  it('closed loop on the chat endpoint, model taken from /v1/models, config file + flag override', async () => {
    const dir = tempDir('cfg');
    const cfg = join(dir, 'run.yaml');
    writeFileSync(cfg, `target:\n  endpoint: /v1/chat/completions\n  ignore_eos: true\nload:\n  concurrency: 4\n  num_prompts: 100\nworkload:\n  random_input_len: 32\n  random_output_len: 8\n`);
    const out = await runCli(['run', '--config', cfg, '--base-url', sim.url, '--num-prompts', '12', '--no-save', '--json', '--progress', 'none']);
    expectCompleted(out);
    const r = JSON.parse(out.stdout) as RunResult;
    expect(r.target.model).toBe('served-model');
    expect(r.load.mode).toBe('closed');
    expect(r.metrics.requests.total).toBe(12);
    expect(r.metrics.requests.ok).toBe(12);
    expect(r.metrics.tokens.output_total).toBe(12 * 8);
    expect(r.metrics.throughput.peak_concurrency).toBeLessThanOrEqual(4);
  });
});
