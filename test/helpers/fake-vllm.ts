/**
 * A vLLM-like front on 127.0.0.1 for environment-fingerprint tests: it answers /v1/models,
 * /version and /metrics as vLLM does (the engine's series with `vllm:cache_config_info`, and
 * DCGM exporter series with their labels), checks the API key on /v1/models, and forwards the
 * generation APIs to a simulator behind it, so a whole run works against it.
 */
import { request } from 'node:http';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { startTestServer, type TestServer } from './servers.js';

export interface FakeVllmOptions {
  model?: string;
  version?: string | null;
  gpuModel?: string;
  gpus?: number;
  driver?: string;
  blockSize?: number;
  numGpuBlocks?: number;
  /** Required as `Authorization: Bearer <key>` on /v1/models (null: no auth). */
  apiKey?: string | null;
  /** /version never answers (a probe must give up on its own). */
  hangVersion?: boolean;
  /** The `root` /v1/models states (default a local path). */
  root?: string;
}

export interface FakeVllm {
  url: string;
  /** Paths requested, in order (to see what the probes asked). */
  seen: string[];
  /** The Authorization header each GET /v1/models carried. */
  modelsAuth: (string | undefined)[];
  close(): Promise<void>;
}

export function vllmMetricsText(o: Required<Pick<FakeVllmOptions, 'model' | 'gpuModel' | 'gpus' | 'driver' | 'blockSize' | 'numGpuBlocks'>>): string {
  const L = `model_name="${o.model}",engine="0"`;
  let out = '# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\n';
  out += `vllm:num_requests_running{${L}} 0.0\n`;
  out += '# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\n';
  out += `vllm:cache_config_info{block_size="${o.blockSize}",cache_dtype="auto",calculate_kv_scales="False",cpu_offload_gb="0",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",is_attention_free="False",num_cpu_blocks="None",num_gpu_blocks="${o.numGpuBlocks}",num_gpu_blocks_override="None",prefix_caching_hash_algo="builtin",sliding_window="None",swap_space="4"} 1.0\n`;
  for (const [name, value] of [['DCGM_FI_DEV_GPU_UTIL', 0], ['DCGM_FI_DEV_FB_USED', 70000], ['DCGM_FI_DEV_FB_FREE', 11079], ['DCGM_FI_DEV_FB_RESERVED', 480]] as const) {
    out += `# HELP ${name} x\n# TYPE ${name} gauge\n`;
    for (let i = 0; i < o.gpus; i++) {
      out += `${name}{gpu="${i}",UUID="GPU-${i}0000000-aaaa",pci_bus_id="00000000:0${i}:00.0",device="nvidia${i}",modelName="${o.gpuModel}",Hostname="node-a",DCGM_FI_DRIVER_VERSION="${o.driver}"} ${value}\n`;
    }
  }
  return out;
}

export async function startFakeVllm(opts: FakeVllmOptions = {}): Promise<FakeVllm> {
  const model = opts.model ?? 'meta-llama/Llama-3.1-8B-Instruct';
  const sim: SimServer = await startSimServer({ modelName: model, timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 1 } });
  const simPort = new URL(sim.url).port;
  const seen: string[] = [];
  const modelsAuth: (string | undefined)[] = [];
  const metrics = vllmMetricsText({ model, gpuModel: opts.gpuModel ?? 'NVIDIA H100 80GB HBM3', gpus: opts.gpus ?? 2, driver: opts.driver ?? '535.129.03', blockSize: opts.blockSize ?? 16, numGpuBlocks: opts.numGpuBlocks ?? 27000 });
  const server: TestServer = await startTestServer((req, res, body) => {
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push(`${req.method} ${path}`);
    if (req.method === 'GET' && path === '/v1/models') {
      modelsAuth.push(req.headers.authorization);
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', owned_by: 'vllm', root: opts.root ?? '/models/llama-3.1-8b-instruct', parent: null, max_model_len: 8192 }] }));
      return;
    }
    if (req.method === 'GET' && path === '/version') {
      if (opts.hangVersion) return; // never answers
      if (opts.version === null) res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: opts.version ?? '0.6.3' }));
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metrics);
      return;
    }
    if (req.method === 'POST') {
      // The generation APIs: the simulator behind answers them.
      const up = request({ host: '127.0.0.1', port: simPort, path: req.url, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (r) => {
        res.writeHead(r.statusCode ?? 500, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
  });
  return {
    url: server.url,
    seen,
    modelsAuth,
    close: async () => {
      await server.close();
      await sim.close();
    },
  };
}
