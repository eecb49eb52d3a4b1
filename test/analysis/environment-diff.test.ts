/** Two fingerprints side by side: which differences block a verdict, by hand-built cases. */
import { describe, expect, it } from 'vitest';
import { compareEnvironments, parseVary, refusalLine } from '../../src/analysis/environment-diff.js';
import type { RunEnvironment } from '../../src/analysis/environment.js';
import { UserError } from '../../src/errors/user-error.js';

function env(server: Partial<RunEnvironment['server']> = {}, client: Partial<RunEnvironment['client']> = {}, unknown: Record<string, string> = {}): RunEnvironment {
  return {
    version: 1,
    server: { model_id: 'm', model_root: '/m', max_model_len: 8192, owned_by: 'vllm', engine: 'vllm', engine_version: '0.6.3', engine_settings: { block_size: '16', num_gpu_blocks: '27000' }, gpu_model: 'NVIDIA H100 80GB HBM3', gpu_count: 1, gpu_driver: '535.129.03', gpu_memory_mib: 81559, ...server },
    client: { cpu_model: 'Xeon', cpu_cores: 8, os: 'Linux 6.8 x64', node_version: 'v20.20.2', infermeter_version: '0.1.0', git_commit: null, ...client },
    unknown,
    sources: [],
  };
}

const statusOf = (c: ReturnType<typeof compareEnvironments>, field: string) => c.fields.find((f) => f.field === field);

describe('compareEnvironments', () => {
  it('identical fingerprints: every field the same, nothing blocks', () => {
    const c = compareEnvironments(env(), env());
    expect(c.blocking).toEqual([]);
    expect(c.fields.every((f) => f.status === 'same')).toBe(true);
    // 11 server fields with engine_settings as its 2 keys (10 + 2), then 6 client fields
    expect(c.fields.map((f) => f.field)).toEqual([
      'model_id', 'model_root', 'max_model_len', 'owned_by', 'engine', 'engine_version', 'engine_settings.block_size', 'engine_settings.num_gpu_blocks',
      'gpu_model', 'gpu_count', 'gpu_driver', 'gpu_memory_mib', 'cpu_model', 'cpu_cores', 'os', 'node_version', 'infermeter_version', 'git_commit',
    ]);
  });

  it('another GPU: its fields block unless --vary gpu; the KV block count it implies never blocks', () => {
    const a = env();
    const b = env({ gpu_model: 'NVIDIA A100-SXM4-80GB', gpu_driver: '535.129.03', engine_settings: { block_size: '16', num_gpu_blocks: '9000' } });
    const c = compareEnvironments(a, b);
    expect(c.blocking).toEqual(['gpu_model']);
    expect(statusOf(c, 'engine_settings.num_gpu_blocks')).toMatchObject({ status: 'differs', blocks: false, note: 'found by the engine, not set: shown, never blocks' });
    expect(refusalLine(c, 'runs/a', 'runs/b')).toBe(
      'the server differs between runs/a and runs/b in gpu_model ("NVIDIA H100 80GB HBM3" vs "NVIDIA A100-SXM4-80GB"), which is not declared under test: no verdict. Declare it with --vary gpu_model (or a group: gpu, engine, model), or judge anyway with --force',
    );
    const varied = compareEnvironments(a, b, ['gpu']);
    expect(varied.blocking).toEqual([]);
    expect(statusOf(varied, 'gpu_model')).toMatchObject({ status: 'differs', blocks: false, note: 'under test: --vary' });
  });

  it('engine upgrade: version and a changed setting block; --vary engine_version leaves the setting blocking, --vary engine covers both', () => {
    const b = env({ engine_version: '0.7.0', engine_settings: { block_size: '32', num_gpu_blocks: '27000' } });
    expect(compareEnvironments(env(), b).blocking).toEqual(['engine_version', 'engine_settings.block_size']);
    expect(compareEnvironments(env(), b, ['engine_version']).blocking).toEqual(['engine_settings.block_size']);
    expect(compareEnvironments(env(), b, ['engine_version', 'engine_settings.block_size']).blocking).toEqual([]);
    expect(compareEnvironments(env(), b, ['engine']).blocking).toEqual([]);
  });

  it('a setting stated on one side only differs (set vs default); a side stating no settings is unknown, not blocking', () => {
    const b = env({ engine_settings: { block_size: '16', num_gpu_blocks: '27000', max_num_seqs: '64' } });
    const c = compareEnvironments(env(), b);
    expect(c.blocking).toEqual(['engine_settings.max_num_seqs']);
    expect(statusOf(c, 'engine_settings.max_num_seqs')).toMatchObject({ a: null, b: '64', status: 'differs' });
    // B's setting slots in after A's settings, before the GPU fields
    expect(c.fields.map((f) => f.field).indexOf('engine_settings.max_num_seqs')).toBe(8);
    const none = compareEnvironments(env(), env({ engine_settings: null }, {}, { engine_settings: 'the server states no engine settings' }));
    expect(none.blocking).toEqual([]);
    expect(statusOf(none, 'engine_settings.block_size')).toMatchObject({ status: 'unknown', note: 'unknown in B: the server states no engine settings' });
  });

  it('a field unknown on one side is shown with its reason and never blocks', () => {
    const b = env({ engine_version: null }, {}, { engine_version: 'the server states no version (GET /version: HTTP 404)' });
    const c = compareEnvironments(env(), b);
    expect(c.blocking).toEqual([]);
    expect(statusOf(c, 'engine_version')).toMatchObject({ status: 'unknown', blocks: false, note: 'unknown in B: the server states no version (GET /version: HTTP 404)' });
  });

  it('client-host differences are shown, never blocking', () => {
    const c = compareEnvironments(env(), env({}, { cpu_model: 'EPYC', cpu_cores: 64, node_version: 'v22.1.0' }));
    expect(c.blocking).toEqual([]);
    expect(c.fields.filter((f) => f.status === 'differs').map((f) => [f.field, f.note])).toEqual([
      ['cpu_model', 'client host: shown, never blocks'],
      ['cpu_cores', 'client host: shown, never blocks'],
      ['node_version', 'client host: shown, never blocks'],
    ]);
  });

  it('a run without a fingerprint (an older result): nothing compared, nothing blocks, and it says so', () => {
    const c = compareEnvironments(null, env());
    expect(c).toMatchObject({ fields: [], blocking: [] });
    expect(c.missing).toMatch(/^A carries no environment fingerprint \(a vLLM result file, or a result or sweep written before fingerprints\)/);
  });
});

describe('parseVary', () => {
  it('takes comma lists and repeats, groups, fields and engine_settings keys', () => {
    expect(parseVary(['engine_version,gpu', 'engine_settings.block_size', 'gpu'])).toEqual(['engine_version', 'gpu', 'engine_settings.block_size']);
  });
  it('refuses a name that is no field in one line', () => {
    expect(() => parseVary(['gpus'])).toThrow(UserError);
    expect(() => parseVary(['gpus'])).toThrow(/^--vary gpus: not a fingerprint field; give one or more of model, engine, gpu, model_id/);
  });
});
