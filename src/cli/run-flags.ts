/**
 * The flags of `infermeter run` / `sim run`, named as vLLM's `bench serve` names them where
 * the concept is the same, and where each one lands in the run spec. Flags carry no
 * defaults (the schema does), so a flag given overrides the config file and one not given
 * leaves it alone.
 */
import { Option, type Command } from 'commander';
import { UserError } from '../errors/user-error.js';
import { setPath, type PlainObject } from '../config/plain-object.js';

type Kind = 'string' | 'int' | 'number' | 'bool' | 'json' | 'list' | 'headers';

export interface FlagDef {
  flag: string;
  path: string[];
  kind: Kind;
  help: string;
  /** A switch that stands for a value of another field (`--quiet` is `progress: none`). */
  value?: unknown;
}

export const TARGET_FLAGS: FlagDef[] = [
  { flag: '--base-url <url>', path: ['target', 'base_url'], kind: 'string', help: 'server root, e.g. http://localhost:8000 (a trailing /v1 is accepted; default: start the built-in simulated engine)' },
  { flag: '--endpoint <path>', path: ['target', 'endpoint'], kind: 'string', help: "API path (default: the --endpoint-type's, else /v1/completions): /v1/completions, /v1/chat/completions, /v1/embeddings, /v1/responses, /v1/messages, /generate_stream (TGI), /generate (SGLang), /v2/models/NAME/generate_stream (Triton)" },
  { flag: '--endpoint-type <kind>', path: ['target', 'endpoint_type'], kind: 'string', help: "the API the endpoint speaks: completions, chat, embeddings, responses, anthropic, tgi, sglang, sglang-incremental, triton, triton-cumulative (docs/endpoints.md); default: the one --endpoint names" },
  { flag: '--backend <name>', path: ['target', 'endpoint_type'], kind: 'string', help: "--endpoint-type in vLLM bench serve's words: openai, openai-chat, openai-embeddings (our names work too)" },
  { flag: '--model <name>', path: ['target', 'model'], kind: 'string', help: 'model id (default: first from /v1/models); without --base-url, the simulated model profile' },
  { flag: '--api-key-env <var>', path: ['target', 'api_key_env'], kind: 'string', help: 'environment variable holding the API key (default OPENAI_API_KEY); the key is never written anywhere' },
  { flag: '--no-stream', path: ['target', 'stream'], kind: 'bool', help: 'send non-streaming requests (TTFT then equals E2EL)' },
  { flag: '--ignore-eos', path: ['target', 'ignore_eos'], kind: 'bool', help: 'send ignore_eos so outputs are exactly max_tokens long (vLLM, SGLang, llama.cpp); default: on for the random dataset, as vllm bench serve' },
  { flag: '--no-ignore-eos', path: ['target', 'ignore_eos'], kind: 'bool', help: 'never send ignore_eos (outputs end at the model\'s EOS)' },
  { flag: '--extra-body <json>', path: ['target', 'extra_body'], kind: 'json', help: `extra JSON fields for every request body, e.g. '{"temperature":0}'` },
  { flag: '--header <name:value...>', path: ['target', 'headers'], kind: 'headers', help: "extra HTTP header, 'Name: value' or vLLM's KEY=VALUE (repeatable)" },
  { flag: '--timeout <duration>', path: ['target', 'timeout_ms'], kind: 'string', help: 'per-request timeout, e.g. 60s or 10m (bare number: seconds; default 10m)' },
  { flag: '--stall-timeout <duration>', path: ['target', 'stall_timeout_ms'], kind: 'string', help: 'end a response that has begun but sends no byte for this long as `stalled`, e.g. 30s (bare number: seconds; default 60s; 0 = off)' },
  { flag: '--retries <n>', path: ['target', 'retries'], kind: 'int', help: 'retry a request failed before any output (429, 5xx, refused connection) up to N times: Retry-After, else backoff from 0.5 s (default 0); every attempt is a record' },
  { flag: '--no-preflight', path: ['target', 'preflight'], kind: 'bool', help: 'skip the pre-flight check' },
  { flag: '--insecure', path: ['target', 'tls_insecure'], kind: 'bool', help: 'skip TLS certificate verification (self-signed https endpoints)' },
];

export const LOAD_FLAGS: FlagDef[] = [
  { flag: '--request-rate <rate>', path: ['load', 'request_rate'], kind: 'string', help: 'open loop: requests/s, or inf to send all at once (default inf)' },
  { flag: '--burstiness <k>', path: ['load', 'burstiness'], kind: 'number', help: 'gamma shape of inter-arrival times: 1 = Poisson, < 1 burstier (default 1)' },
  { flag: '--arrival <kind>', path: ['load', 'arrival'], kind: 'string', help: 'inter-arrival distribution: poisson|gamma|constant' },
  { flag: '--max-concurrency <n>', path: ['load', 'max_concurrency'], kind: 'int', help: 'open loop: cap on requests in flight; held requests count as late' },
  { flag: '--concurrency <n>', path: ['load', 'concurrency'], kind: 'int', help: 'closed loop: keep exactly N requests in flight' },
  { flag: '--batch-size <n>', path: ['load', 'batch_size'], kind: 'int', help: 'embeddings, rerank, score: inputs (rerank/score: documents) per request (default 1), consecutive workload items' },
  { flag: '--num-prompts <n>', path: ['load', 'num_prompts'], kind: 'int', help: 'requests to send (default 1000 unless --duration)' },
  { flag: '--duration <duration>', path: ['load', 'duration_ms'], kind: 'string', help: 'stop sending after this long, e.g. 60s, 5m (bare number: seconds)' },
  { flag: '--ramp-up <duration>', path: ['load', 'ramp_up_ms'], kind: 'string', help: 'the rate or concurrency rises linearly from zero to its target over this long, e.g. 60s (excluded from figures)' },
  { flag: '--ramp-down <duration>', path: ['load', 'ramp_down_ms'], kind: 'string', help: 'the load falls linearly to zero over the last part of --duration, e.g. 60s (excluded from figures)' },
  { flag: '--warmup <n|duration>', path: ['load', 'warmup'], kind: 'string', help: 'excluded from figures at the start: a request count (20) or a duration (30s)' },
  { flag: '--cooldown <n|duration>', path: ['load', 'cooldown'], kind: 'string', help: 'excluded from figures at the end: a request count, or a duration with --duration' },
  { flag: '--grace <duration>', path: ['load', 'grace_ms'], kind: 'string', help: 'after --duration, how long in-flight requests may finish before they are cancelled (default 30s)' },
  { flag: '--workers <n>', path: ['load', 'workers'], kind: 'int', help: 'worker threads sending the load (default: cores − 1, at least 1; 0 = main thread; at most 4 per core)' },
  { flag: '--preconnect <n>', path: ['load', 'preconnect'], kind: 'int', help: 'connections to open before the clock starts (default: the concurrency cap, else ~1 s of arrivals, at most 256; 0 = none)' },
  { flag: '--busy-poll', path: ['load', 'busy_poll'], kind: 'bool', help: 'precise timing: workers poll instead of sleeping, so chunks are timestamped without the OS wake-up delay (a full core each)' },
  { flag: '--seed <n>', path: ['load', 'seed'], kind: 'int', help: 'seed of the schedule and the prompts (default 0)' },
  { flag: '--goodput <slo...>', path: ['goodput'], kind: 'list', help: 'per-request SLOs for goodput, e.g. ttft:500 tpot:50 e2el:10s (bare numbers: ms)' },
  { flag: '--slo <objective...>', path: ['slos'], kind: 'list', help: `an SLO the run must meet (repeatable; exit 3 if one fails): 'p95(ttft) < 1.5s', 'error_rate < 0.1%', 'p99(ttft) <= 500ms over 5m >= 99.9%'` },
];

/** Cost figures (run, sim run, analyze): a price and a GPU count, or a price table. */
export const COST_FLAGS: FlagDef[] = [
  { flag: '--gpu-hour-cost <price>', path: ['cost', 'gpu_hour_cost'], kind: 'number', help: 'price of one GPU-hour (e.g. 2.50): adds cost figures to the result' },
  { flag: '--gpus <n>', path: ['cost', 'gpus'], kind: 'int', help: 'GPUs serving the endpoint (simulator: its --tensor-parallel-size)' },
  { flag: '--prices <file>', path: ['cost', 'prices'], kind: 'string', help: 'price table per GPU model (YAML/JSON; example: docs/prices.example.yaml)' },
  { flag: '--gpu-type <name>', path: ['cost', 'gpu_type'], kind: 'string', help: 'GPU model to price from --prices (simulator: its --hardware)' },
];

/** How the vLLM-compatible JSON is shaped, as vLLM's flags shape it (run and analyze). */
export const VLLM_JSON_FLAGS: FlagDef[] = [
  { flag: '--percentile-metrics <list>', path: ['output', 'percentile_metrics'], kind: 'string', help: 'metrics with percentile keys (vLLM JSON) and summary lines, e.g. ttft,tpot,itl (default all four)' },
  { flag: '--metric-percentiles <list>', path: ['output', 'metric_percentiles'], kind: 'string', help: 'percentiles to compute, any 0 < p < 100, e.g. 25,75,99.99: vLLM JSON keys, result.json, summary (vLLM JSON default: 50,90,95,99,99.9)' },
  { flag: '--label <label>', path: ['output', 'label'], kind: 'string', help: 'vLLM JSON: label field' },
];

/** When a run counts as invalid and whether that fails the command (run, sim run, analyze). */
export const VALIDITY_FLAGS: FlagDef[] = [
  { flag: '--max-failure-rate <rate>', path: ['validity', 'max_failure_rate'], kind: 'string', help: 'largest share of requests that may fail in a valid run, e.g. 0.01 or 1% (default 5%); above it the run is invalid (exit 5)' },
  { flag: '--allow-invalid', path: ['validity', 'allow_invalid'], kind: 'bool', help: 'exit 0 even when the run is invalid (the verdict still says why)' },
  { flag: '--no-capacity-check', path: ['validity', 'capacity_check'], kind: 'bool', help: 'skip the ~1.5 s self-test before t = 0 that measures what this client can drive, picks the worker-thread count and refuses a plan beyond this machine' },
];

export const OUTPUT_FLAGS: FlagDef[] = [
  { flag: '--name <name>', path: ['name'], kind: 'string', help: 'run name, used in the run directory name (default run)' },
  { flag: '--result-dir <dir>', path: ['output', 'result_dir'], kind: 'string', help: 'where run directories go (default results)' },
  { flag: '--no-save', path: ['output', 'save'], kind: 'bool', help: 'do not write a run directory' },
  { flag: '--no-report', path: ['output', 'report'], kind: 'bool', help: 'do not write report.html (the HTML report) into the run directory' },
  { flag: '--vllm-json <file>', path: ['output', 'vllm_json'], kind: 'string', help: 'also write the figures under the keys of vllm bench serve --save-result' },
  ...VLLM_JSON_FLAGS,
  { flag: '--junit <file>', path: ['output', 'junit'], kind: 'string', help: 'also write the gates (validity, each --slo) as JUnit XML, one testcase per gate' },
  { flag: '--keep-text', path: ['output', 'keep_text'], kind: 'bool', help: 'keep generated text in records.jsonl' },
  { flag: '--json', path: ['output', 'json'], kind: 'bool', help: 'print result.json to stdout instead of the summary table' },
  { flag: '--progress <mode>', path: ['output', 'progress'], kind: 'string', help: 'auto|bar|lines|none (default auto: a live panel on a terminal, a plain line every 5 s otherwise)' },
  { flag: '--quiet', path: ['output', 'progress'], kind: 'bool', value: 'none', help: 'no progress display (same as --progress none)' },
];

/** Server-side observation during a run (docs/observe.md). */
export const OBSERVE_FLAGS: FlagDef[] = [
  { flag: '--metrics-url <url...>', path: ['observe', 'metrics_urls'], kind: 'list', help: "Prometheus endpoint(s) to scrape during the run, one per replica (default: the target's /metrics)" },
  { flag: '--dcgm-url <url...>', path: ['observe', 'dcgm_urls'], kind: 'list', help: 'NVIDIA DCGM exporter endpoint(s) for GPU telemetry' },
  { flag: '--nvidia-smi', path: ['observe', 'nvidia_smi'], kind: 'bool', help: 'sample GPU telemetry with nvidia-smi (default: when it is on PATH and the target is on this host)' },
  { flag: '--prometheus-url <url>', path: ['observe', 'prometheus_url'], kind: 'string', help: 'read server series from this Prometheus server (range queries over the run) instead of scraping' },
  { flag: '--scrape-interval <duration>', path: ['observe', 'scrape_interval_ms'], kind: 'string', help: 'how often to scrape (default 1s)' },
  { flag: '--no-metrics', path: ['observe', 'metrics'], kind: 'bool', help: "do not read the server's metrics" },
  { flag: '--metrics-port <[host:]port>', path: ['observe', 'metrics_port'], kind: 'string', help: "serve this client's live metrics (requests by outcome, in flight, TTFT/TPOT/ITL histograms, dispatch lag) in Prometheus format at /metrics during the run; a bare port listens on every interface" },
  { flag: '--otlp-receiver <addr>', path: ['observe', 'otlp_receiver'], kind: 'string', help: "receive the server's trace spans and join them to the records by trace id (queue, prefill, decode and network per request): [host:]port or http://host:port for OTLP/HTTP, grpc://host[:4317] for OTLP/gRPC (point vLLM's --otlp-traces-endpoint here); the built-in simulator sends its own" },
  { flag: '--spans <file>', path: ['observe', 'spans_file'], kind: 'string', help: "also read the run's spans from an OpenTelemetry Collector file exporter's output (OTLP/JSON lines) after the load and join them like --otlp-receiver's, for servers that cannot reach this client" },
  { flag: '--otlp-forward <url>', path: ['observe', 'otlp_forward'], kind: 'string', help: "--otlp-receiver: also forward every accepted trace payload to your collector (http(s)://host:4318 for OTLP/HTTP, grpc://host:4317 for OTLP/gRPC), through a bounded queue; drops and failures counted in the result" },
  { flag: '--otlp-metrics <url>', path: ['observe', 'otlp_metrics'], kind: 'string', help: "push this client's live metrics (those of --metrics-port) as OTLP metrics every 10 s and at the end of the run: http(s)://host:4318 (OTLP/HTTP protobuf, /v1/metrics) or grpc://host:4317" },
  { flag: '--otlp-wait <duration>', path: ['observe', 'otlp_wait_ms'], kind: 'string', help: '--otlp-receiver: wait up to this long after the load for the last spans (default 6s)' },
  { flag: '--cold-start', path: ['observe', 'cold_start'], kind: 'bool', help: 'measure a cold start: time until the server answers its health endpoint and a first request, then the first requests against the rest' },
  { flag: '--cold-start-timeout <duration>', path: ['observe', 'cold_start_timeout_ms'], kind: 'string', help: '--cold-start: give up after this long (default 10m)' },
];

/** A calibrated cost model (`sim calibrate --out`), shared by run, sim run, sim serve, sweep and plan. */
export const SIM_PROFILE_FLAG: FlagDef = { flag: '--sim-profile <file>', path: ['sim', 'profile'], kind: 'string', help: 'simulated engine: cost-model parameters from a profile file written by `infermeter sim calibrate`' };

/** The simulated engine's settings, named as vLLM's `serve` names them. */
export const ENGINE_FLAGS: FlagDef[] = [
  { flag: '--tensor-parallel-size <n>', path: ['sim', 'tensor_parallel_size'], kind: 'int', help: 'simulated engine: GPUs per replica (default 1)' },
  { flag: '--max-num-seqs <n>', path: ['sim', 'max_num_seqs'], kind: 'int', help: 'simulated engine: max running sequences (default as vLLM V1 for the GPU: 1024 on H100/H200/MI300X, 256 on A100/L40S/L4)' },
  { flag: '--max-num-batched-tokens <n>', path: ['sim', 'max_num_batched_tokens'], kind: 'int', help: 'simulated engine: token budget per step (default as vLLM V1 for the GPU: 8192 on H100/H200/MI300X, 2048 on A100/L40S/L4)' },
  { flag: '--gpu-memory-utilization <f>', path: ['sim', 'gpu_memory_utilization'], kind: 'number', help: 'simulated engine: fraction of GPU memory used (default 0.9)' },
  { flag: '--block-size <n>', path: ['sim', 'block_size'], kind: 'int', help: 'simulated engine: KV-cache block size in tokens (default 16)' },
  { flag: '--max-model-len <n>', path: ['sim', 'max_model_len'], kind: 'int', help: 'simulated engine: context length stated in /v1/models (default: the model profile\'s)' },
  { flag: '--num-gpu-blocks-override <n>', path: ['sim', 'num_gpu_blocks_override'], kind: 'int', help: 'simulated engine: KV-cache blocks, instead of the count from GPU memory (e.g. to force KV pressure)' },
  { flag: '--no-enable-prefix-caching', path: ['sim', 'enable_prefix_caching'], kind: 'bool', help: 'simulated engine: turn prefix caching off' },
  { flag: '--engine-preset <name>', path: ['sim', 'engine_preset'], kind: 'string', help: 'simulated engine: vllm-v1 (default), vllm-v0 (prefill-first, no chunked prefill, V0 CPU time per step), tensorrt-llm (reserve-full admission, CPU overlapped, 2048 sequences) or sglang (static memory fraction 0.88, CPU overlapped)' },
  { flag: '--num-scheduler-steps <n>', path: ['sim', 'num_scheduler_steps'], kind: 'int', help: 'simulated engine: vLLM V0 multi-step scheduling, decode iterations per scheduler call (default 1)' },
  SIM_PROFILE_FLAG,
];

/** The simulator's reasoning mode (docs/simulator.md). */
export const REASONING_FLAGS: FlagDef[] = [
  { flag: '--reasoning-tokens <n|share>', path: ['sim', 'reasoning_tokens'], kind: 'string', help: 'simulator reasoning mode (chat): each response starts with N reasoning tokens (64) or this share of its output (0.3, 30%), streamed as reasoning deltas before the answer' },
  { flag: '--reasoning-field <name>', path: ['sim', 'reasoning_field'], kind: 'string', help: 'simulator: delta field of reasoning tokens, reasoning_content (default) or reasoning (newer vLLM)' },
];

/** The simulator's answer mode (docs/quality.md §Simulator answer mode), under `sim serve`'s names. */
export const ANSWER_FLAGS: FlagDef[] = [
  { flag: '--accuracy <p>', path: ['sim', 'accuracy'], kind: 'number', help: 'answer mode: share of checked prompts answered correctly (default 1)' },
  { flag: '--json-error-rate <p>', path: ['sim', 'json_error_rate'], kind: 'number', help: 'answer mode: share of JSON-task answers sent malformed (default 0)' },
  { flag: '--hallucination-rate <p>', path: ['sim', 'hallucination_rate'], kind: 'number', help: 'answer mode: share of unknowable closed-book questions answered with a confident fabrication (default 0)' },
  { flag: '--refusal-rate <p>', path: ['sim', 'refusal_rate'], kind: 'number', help: 'answer mode: share of checked prompts refused (default 0)' },
];

/** `sim serve`: the same simulator settings, under the names of a command that only simulates. */
export const SERVE_SIM_FLAGS: FlagDef[] = [
  { flag: '--hardware <name>', path: ['sim', 'hardware'], kind: 'string', help: 'GPU profile or a JSON/YAML profile file (default h100)' },
  { flag: '--model <name>', path: ['sim', 'model'], kind: 'string', help: 'model profile, also the served model id (default llama-3.1-8b)' },
  { flag: '--prefill-ms <ms>', path: ['sim', 'prefill_ms'], kind: 'number', help: 'fixed-delay mode: time to first token' },
  { flag: '--per-token-ms <ms>', path: ['sim', 'per_token_ms'], kind: 'number', help: 'fixed-delay mode: time between tokens' },
  ...ENGINE_FLAGS,
  ...REASONING_FLAGS,
  ...ANSWER_FLAGS,
];

export const SIM_FLAGS: FlagDef[] = [
  { flag: '--hardware <name>', path: ['sim', 'hardware'], kind: 'string', help: 'simulated GPU profile when no --base-url (default h100)' },
  { flag: '--sim-prefill-ms <ms>', path: ['sim', 'prefill_ms'], kind: 'number', help: 'simulator fixed-delay mode: time to first token' },
  { flag: '--sim-per-token-ms <ms>', path: ['sim', 'per_token_ms'], kind: 'number', help: 'simulator fixed-delay mode: time between tokens' },
  ...ENGINE_FLAGS,
  ...REASONING_FLAGS,
  // With the built-in simulator, answer mode is on when the dataset's entries carry checks (--dataset-name eval).
  ...ANSWER_FLAGS.map((f) => ({ ...f, flag: f.flag.replace(/^--/, '--sim-'), help: `simulator ${f.help}` })),
];

function attrName(flag: string): string {
  const long = flag.split(' ')[0]!.replace(/^--(no-)?/, '');
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function registerFlags(cmd: Command, defs: readonly FlagDef[]): Command {
  for (const d of defs) cmd.addOption(new Option(d.flag, d.help));
  return cmd;
}

function flagName(d: FlagDef): string {
  return d.flag.split(' ')[0]!;
}

function convert(d: FlagDef, raw: unknown): unknown {
  const name = flagName(d);
  switch (d.kind) {
    case 'string':
    case 'list':
    case 'bool':
      return raw;
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n)) throw new UserError(`${name}: expected an integer, got "${String(raw)}"`);
      return n;
    }
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new UserError(`${name}: expected a number, got "${String(raw)}"`);
      return n;
    }
    case 'json': {
      try {
        const v: unknown = JSON.parse(String(raw));
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
        return v;
      } catch {
        throw new UserError(`${name}: expected a JSON object such as '{"ignore_eos":true}', got ${String(raw)}`);
      }
    }
    case 'headers': {
      const out: Record<string, string> = {};
      for (const h of raw as string[]) {
        // 'Name: value' (curl) or 'KEY=VALUE' (vLLM's bench serve): a header name holds neither
        // ':' nor '=', so the first of them ends it and the value may contain the other.
        const m = /[:=]/.exec(h);
        const i = m?.index ?? -1;
        if (i <= 0) throw new UserError(`${name}: expected 'Name: value' or KEY=VALUE, got "${h}"`);
        out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
      }
      return out;
    }
  }
}

/**
 * Maps parsed commander options to a partial spec. Returns the spec object and, for error
 * messages, which flag set which spec path.
 */
export function specFromFlags(opts: Record<string, unknown>, defs: readonly FlagDef[]): { spec: PlainObject; flagPaths: Map<string, string> } {
  const spec: PlainObject = {};
  const flagPaths = new Map<string, string>();
  for (const d of defs) {
    const raw = opts[attrName(d.flag)];
    if (raw === undefined) continue;
    // commander sets `--no-x` options to true by default; only an explicit --no-x (false) counts.
    if (d.flag.startsWith('--no-') && raw !== false) continue;
    setPath(spec, d.path, d.value !== undefined ? d.value : convert(d, raw));
    flagPaths.set(d.path.join('.'), flagName(d));
  }
  return { spec, flagPaths };
}

/**
 * --proxy / --no-proxy: beside the target's flags, but not in the run spec (a proxy is this
 * machine's way out, not part of the benchmark, and its URL may hold credentials).
 */
export function registerProxyOptions(cmd: Command): void {
  cmd.addOption(new Option('--proxy <url>', 'send requests to the server through this HTTP proxy, e.g. http://proxy:3128 (overrides HTTP_PROXY/HTTPS_PROXY; NO_PROXY still applies; the simulator is never proxied; docs/cli.md §Proxies)'));
  cmd.addOption(new Option('--no-proxy', 'ignore HTTP_PROXY/HTTPS_PROXY/ALL_PROXY: connect to the server directly'));
}

/** The command's io with --proxy / --no-proxy (commander: a string, false, or undefined). */
export function withProxyFlags<T extends { proxy?: string | false }>(io: T, opts: Record<string, unknown>): T {
  const p = opts.proxy;
  if (typeof p === 'string') {
    if (p.trim() === '') throw new UserError('--proxy: empty; give a proxy URL such as http://proxy:3128, or --no-proxy');
    return { ...io, proxy: p };
  }
  return p === false ? { ...io, proxy: false } : io;
}
