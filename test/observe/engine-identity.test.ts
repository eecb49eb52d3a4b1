/** What a server says it is, parsed from its answers: hand-written texts in each engine's words. */
import { describe, expect, it } from 'vitest';
import { engineIdentityOf, gpuIdentityOf, llamaPropsOf, modelIdentityOf, tgiInfoOf, versionOf } from '../../src/observe/engine-identity.js';
import { parseExposition } from '../../src/observe/exposition.js';
import { nvidiaSmiIdentityToExposition } from '../../src/observe/nvidia-smi.js';
import { identityExposition, simIdentity } from '../../src/sim/index.js';

describe('engine identity from metrics', () => {
  it("vLLM: the engine from its marker, its settings from vllm:cache_config_info's labels (not engine/model_name)", () => {
    const text = [
      'vllm:num_requests_running{model_name="m",engine="0"} 3',
      'vllm:cache_config_info{block_size="32",engine="0",enable_prefix_caching="False",num_gpu_blocks="1234",model_name="m"} 1.0',
    ].join('\n');
    expect(engineIdentityOf(parseExposition(text))).toEqual({
      engine: 'vllm',
      version: null,
      settings: { block_size: '32', enable_prefix_caching: 'False', num_gpu_blocks: '1234' },
      sources: ['vllm:num_requests_running (engine)', 'vllm:cache_config_info'],
    });
  });

  it('SGLang: its token pool as the one stated setting', () => {
    const id = engineIdentityOf(parseExposition('sglang:num_running_reqs{model_name="m"} 0\nsglang:max_total_num_tokens{model_name="m"} 412345\n'));
    expect(id.engine).toBe('sglang');
    expect(id.settings).toEqual({ max_total_num_tokens: '412345' });
  });

  it("the simulator's info series wins over the vLLM names it also serves", () => {
    const sim = simIdentity({ kind: 'engine', hardware: 'a100', model: 'llama-3.1-8b', engine: { max_num_seqs: 64 } }, 'vllm-v1');
    const text = `vllm:num_requests_running{model_name="m",engine="0"} 0\n${identityExposition(sim)}`;
    const id = engineIdentityOf(parseExposition(text));
    expect(id.engine).toBe('infermeter-sim');
    expect(id.version).toBe(sim.version);
    expect(id.settings).toEqual({ engine_preset: 'vllm-v1', max_num_seqs: '64', timing: 'engine' });
  });

  it('no known engine: all null', () => {
    expect(engineIdentityOf(parseExposition('process_start_time_seconds 1\n'))).toEqual({ engine: null, version: null, settings: null, sources: [] });
  });
});

describe('GPU identity from DCGM-named series', () => {
  it('counts GPUs by UUID, joins distinct models, takes FB_TOTAL over used + free', () => {
    const text = [
      'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",modelName="NVIDIA A100-SXM4-40GB",DCGM_FI_DRIVER_VERSION="520.56.06"} 39000',
      'DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-a",modelName="NVIDIA A100-SXM4-40GB",DCGM_FI_DRIVER_VERSION="520.56.06"} 1536',
      'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b",modelName="NVIDIA A100-SXM4-80GB",DCGM_FI_DRIVER_VERSION="520.56.06"} 10',
      'DCGM_FI_DEV_FB_TOTAL{gpu="1",UUID="GPU-b",modelName="NVIDIA A100-SXM4-80GB",DCGM_FI_DRIVER_VERSION="520.56.06"} 81920',
      // a MIG instance of GPU 1: the same UUID, not a third GPU
      'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b",GPU_I_ID="7",modelName="NVIDIA A100-SXM4-80GB"} 6',
    ].join('\n');
    expect(gpuIdentityOf(parseExposition(text))).toEqual({ model: 'NVIDIA A100-SXM4-40GB + NVIDIA A100-SXM4-80GB', count: 2, driver: '520.56.06', memory_mib: 81920 });
  });

  it('labels without a driver or a framebuffer size leave those null', () => {
    expect(gpuIdentityOf(parseExposition('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 5\n'))).toEqual({ model: null, count: 1, driver: null, memory_mib: null });
    expect(gpuIdentityOf(parseExposition('vllm:num_requests_running 0\n'))).toBeNull();
  });

  it("nvidia-smi's identity query reads as exporter series", () => {
    const csv = '0, NVIDIA H100 80GB HBM3, 550.54.15, 81559, GPU-1111\n1, NVIDIA H100 80GB HBM3, 550.54.15, 81559, GPU-2222\n';
    expect(gpuIdentityOf(parseExposition(nvidiaSmiIdentityToExposition(csv)))).toEqual({ model: 'NVIDIA H100 80GB HBM3', count: 2, driver: '550.54.15', memory_mib: 81559 });
  });
});

describe('metadata answers', () => {
  it('/v1/models: the named model, else the first; lengths must be positive integers', () => {
    const j = { data: [{ id: 'a', root: 'r-a', max_model_len: 4096, owned_by: 'vllm' }, { id: 'b', max_model_len: 0 }] };
    expect(modelIdentityOf(j, 'b')).toEqual({ id: 'b', root: null, max_model_len: null, owned_by: null });
    expect(modelIdentityOf(j, null)).toEqual({ id: 'a', root: 'r-a', max_model_len: 4096, owned_by: 'vllm' });
    expect(modelIdentityOf({ data: [] }, null)).toBeNull();
  });

  it('/version, TGI /info and llama-server /props', () => {
    expect(versionOf({ version: '0.6.3' })).toBe('0.6.3');
    expect(versionOf({ detail: 'Not Found' })).toBeNull();
    expect(tgiInfoOf({ model_id: 'x', model_sha: 'abc123', model_dtype: 'torch.float16', max_total_tokens: 4096, max_concurrent_requests: 128, version: '2.4.0' })).toEqual({
      version: '2.4.0',
      settings: { model_sha: 'abc123', model_dtype: 'torch.float16', max_concurrent_requests: '128', max_total_tokens: '4096' },
    });
    expect(tgiInfoOf({ version: '1' })).toBeNull();
    expect(llamaPropsOf({ total_slots: 4, build_info: 'b4567-abcdef0', default_generation_settings: { n_ctx: 8192 } })).toEqual({ version: 'b4567-abcdef0', settings: { total_slots: '4', n_ctx: '8192' } });
  });
});
