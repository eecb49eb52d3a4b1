/**
 * The environment fingerprint captured over real HTTP on 127.0.0.1: a vLLM-like server
 * (test/helpers/fake-vllm.ts) answering /v1/models, /version and /metrics with vLLM's
 * cache-config info series and DCGM exporter series; probes that time out or find nothing leave
 * the field null with the reason; nothing recorded holds the run's credential.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureEnvironment } from '../../src/session/environment-capture.js';
import { ObserveSpecSchema } from '../../src/config/observe-spec.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startFakeVllm, type FakeVllm } from '../helpers/fake-vllm.js';
import { startTestServer } from '../helpers/servers.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'sk-test-secret-9f3a71c2';
const observe = (over: Record<string, unknown> = {}) => ObserveSpecSchema.parse({ nvidia_smi: false, ...over });

describe('environment capture against a vLLM-like server', () => {
  let fake: FakeVllm;
  beforeAll(async () => {
    fake = await startFakeVllm({ apiKey: KEY, version: '0.6.3', gpus: 2 });
  });
  afterAll(() => fake.close());

  it('records the model, engine, version, cache settings and GPUs the server reveals', async () => {
    const env = await captureEnvironment({ baseUrl: fake.url, model: 'meta-llama/Llama-3.1-8B-Instruct', observe: observe(), headers: { authorization: `Bearer ${KEY}` }, insecureTls: false });
    expect(env.server).toEqual({
      model_id: 'meta-llama/Llama-3.1-8B-Instruct',
      model_root: '/models/llama-3.1-8b-instruct',
      max_model_len: 8192,
      owned_by: 'vllm',
      engine: 'vllm',
      engine_version: '0.6.3',
      engine_settings: {
        block_size: '16',
        cache_dtype: 'auto',
        calculate_kv_scales: 'False',
        cpu_offload_gb: '0',
        enable_prefix_caching: 'True',
        gpu_memory_utilization: '0.9',
        is_attention_free: 'False',
        num_cpu_blocks: 'None',
        num_gpu_blocks: '27000',
        num_gpu_blocks_override: 'None',
        prefix_caching_hash_algo: 'builtin',
        sliding_window: 'None',
        swap_space: '4',
      },
      gpu_model: 'NVIDIA H100 80GB HBM3',
      gpu_count: 2,
      gpu_driver: '535.129.03',
      // FB_USED + FB_FREE + FB_RESERVED of one GPU: 70000 + 11079 + 480
      gpu_memory_mib: 81559,
    });
    // Every server field is known, so none has a reason.
    expect(Object.keys(env.unknown).filter((k) => !['git_commit', 'cpu_model'].includes(k))).toEqual([]);
    expect(env.sources).toEqual(['GET /v1/models', 'vllm:num_requests_running (engine)', 'vllm:cache_config_info', 'GET /version', `DCGM series (${fake.url}/metrics)`]);
    expect(fake.modelsAuth.at(-1)).toBe(`Bearer ${KEY}`);
    expect(env.client.node_version).toBe(process.version);
    expect(env.client.cpu_cores).toBe(availableParallelism());
  });

  it("URLs in the server's words lose their credentials", async () => {
    const leaky = await startFakeVllm({ root: 'https://user:pw@hub.example/llama?token=hf_fake_secret_4410' });
    try {
      const env = await captureEnvironment({ baseUrl: leaky.url, model: null, observe: observe(), headers: {}, insecureTls: false });
      expect(env.server.model_root).toBe('https://[redacted]@hub.example/llama?token=[redacted]');
    } finally {
      await leaky.close();
    }
  });

  it('a probe that gets no answer leaves its field null with the reason, and the rest is still read', async () => {
    const hung = await startFakeVllm({ hangVersion: true });
    try {
      const env = await captureEnvironment({ baseUrl: hung.url, model: null, observe: observe(), headers: {}, insecureTls: false, timeoutMs: 150 });
      expect(env.server.engine_version).toBeNull();
      expect(env.unknown.engine_version).toBe('the server states no version (GET /version: no answer within 150 ms)');
      expect(env.server.engine).toBe('vllm');
      expect(env.server.gpu_count).toBe(2);
    } finally {
      await hung.close();
    }
  });

  it('--no-metrics: the engine is taken from owned_by; settings and GPUs are unknown, and say why', async () => {
    const env = await captureEnvironment({ baseUrl: fake.url, model: null, observe: observe({ metrics: false }), headers: { authorization: `Bearer ${KEY}` }, insecureTls: false });
    expect(env.server.engine).toBe('vllm');
    expect(env.sources).toContain('owned_by of GET /v1/models (engine)');
    expect(env.server.engine_settings).toBeNull();
    expect(env.unknown.engine_settings).toMatch(/^the server states no engine settings/);
    expect(env.server.gpu_model).toBeNull();
    expect(env.unknown.gpu_model).toBe('--no-metrics: no metrics read');
    expect(fake.seen.filter((p) => p === 'GET /metrics').length).toBeGreaterThan(0); // earlier tests only
  });

  it('a server that answers nothing useful: every server field null with its reason, nothing thrown', async () => {
    const blank = await startTestServer((_req, res) => res.writeHead(404).end());
    try {
      const env = await captureEnvironment({ baseUrl: blank.url, model: 'm', observe: observe(), headers: {}, insecureTls: false });
      for (const v of Object.values(env.server)) expect(v).toBeNull();
      expect(env.unknown.model_id).toBe('GET /v1/models: HTTP 404');
      expect(env.unknown.engine).toBe(`no engine named by ${blank.url}/metrics: HTTP 404`);
      expect(env.unknown.gpu_count).toBe(`no DCGM-named GPU series in ${blank.url}/metrics`);
    } finally {
      await blank.close();
    }
  });
});

describe('a run records its environment in result.json and the history', () => {
  let fake: FakeVllm;
  beforeAll(async () => {
    fake = await startFakeVllm({ apiKey: KEY, version: '0.6.3', root: 'https://hub.example/llama?token=hf_fake_secret_4410' });
  });
  afterAll(() => fake.close());

  it('writes environment (schema /3) without the credential, and `history --where` finds the run by it', async () => {
    const results = tempDir('fingerprint-run');
    const out = await runCli(
      ['run', '--base-url', fake.url, '--num-prompts', '6', '--request-rate', 'inf', '--random-input-len', '32', '--random-output-len', '4', '--ignore-eos', '--no-capacity-check', '--result-dir', results, '--progress', 'none', '--workers', '0', '--no-report'],
      { OPENAI_API_KEY: KEY },
    );
    expectCompleted(out);
    const dir = join(results, readdirSync(results).find((d) => d.endsWith('-run'))!);
    const text = readFileSync(join(dir, 'result.json'), 'utf8');
    const r = JSON.parse(text) as RunResult;
    expect(r.schema).toBe('infermeter.result/3');
    expect(r.environment?.server.engine_version).toBe('0.6.3');
    expect(r.environment?.server.gpu_model).toBe('NVIDIA H100 80GB HBM3');
    // The model root's URL lost its token; the API key appears nowhere.
    expect(r.environment?.server.model_root).toBe('https://hub.example/llama?token=[redacted]');
    expect(text).not.toContain('hf_fake_secret_4410');
    expect(text).not.toContain(KEY);

    const hit = await runCli(['history', '--results-dir', results, '--where', 'engine_version=0.6.3', '--where', 'engine_settings.block_size=16', '--json']);
    expect(hit.code).toBe(0);
    const rows = JSON.parse(hit.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((x) => [x.engine, x.engine_version, x.gpu_model, x.gpu_count])).toEqual([['vllm', '0.6.3', 'NVIDIA H100 80GB HBM3', 2]]);
    const miss = await runCli(['history', '--results-dir', results, '--where', 'engine_version=0.7.0', '--json']);
    expect(JSON.parse(miss.stdout)).toEqual([]);
    const bad = await runCli(['history', '--results-dir', results, '--where', 'gpu=H100']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--where gpu=H100: give FIELD=VALUE with a fingerprint field/);
  });
});
