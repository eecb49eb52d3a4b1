/**
 * A run's environment fingerprint (analysis/environment.ts; docs/result-schema.md §environment):
 * the server's metadata endpoints and metrics, the GPUs (DCGM series, nvidia-smi), the client
 * host. Every probe is bounded by a short timeout, runs beside the others, and never fails the
 * run: a field that cannot be read is null, with its reason in `unknown`. Nothing sent or
 * recorded carries a credential: the probes send the run's own headers, URLs are recorded
 * redacted, and the result passes the run's redactor like everything else it holds.
 */
import { ENVIRONMENT_VERSION, type RunEnvironment, type ServerFingerprint } from '../analysis/environment.js';
import { endpointUrl } from '../client/endpoint-url.js';
import type { ObserveSpec } from '../config/observe-spec.js';
import { engineIdentityOf, gpuIdentityOf, llamaPropsOf, modelIdentityOf, tgiInfoOf, versionOf } from '../observe/engine-identity.js';
import { parseExposition } from '../observe/exposition.js';
import { findNvidiaSmi, sampleNvidiaSmiIdentity } from '../observe/nvidia-smi.js';
import { metricsUrls, nvidiaSmiWanted } from '../observe/run-observer.js';
import { getText } from '../util/http-get.js';
import { redactSecrets, redactUrl } from '../util/redact.js';
import { clientFingerprint } from './client-host.js';
import { identityExposition, modelsBody, simIdentity, type TimingOptions } from '../sim/index.js';
import { envOf, type SessionContext } from './context.js';
import type { RunSpec } from './run-spec.js';
import type { OpenTarget } from './run-target.js';
import { simEngine } from './builtin-sim.js';
import type { ProxySettings } from '../util/proxy.js';

/** Each probe's bound: metadata answers in milliseconds; a server that takes longer leaves the field unknown. */
export const PROBE_TIMEOUT_MS = 2000;

/** What one probe got: the answer's text, or why there is none, in a few words. */
export type ProbeAnswer = { ok: true; text: string } | { ok: false; reason: string };

/** The answers the server side is built from (the same for a real server and the simulator in virtual time). */
export interface ServerAnswers {
  models: ProbeAnswer;
  version: ProbeAnswer;
  /** TGI's GET /info. */
  info: ProbeAnswer;
  /** llama-server's GET /props. */
  props: ProbeAnswer;
  /** Each Prometheus endpoint read (the engine's /metrics, DCGM exporters, nvidia-smi's identity query), by its redacted name. */
  metrics: Array<{ source: string; answer: ProbeAnswer }>;
  /** Said for the GPU fields when no metrics source could describe a GPU (e.g. metrics turned off). */
  gpuNote: string | null;
}

function json(a: ProbeAnswer): { value: unknown } | { reason: string } {
  if (!a.ok) return { reason: a.reason };
  try {
    return { value: JSON.parse(a.text) as unknown };
  } catch {
    return { reason: 'not JSON' };
  }
}

const NO_SETTINGS = 'the server states no engine settings (vLLM: vllm:cache_config_info; TGI: GET /info; llama-server: GET /props)';

/** The server side of the fingerprint from the probes' answers; pure, so both drivers and the tests share it. */
export function serverFingerprintOf(answers: ServerAnswers, model: string | null): { server: ServerFingerprint; unknown: Record<string, string>; sources: string[] } {
  const unknown: Record<string, string> = {};
  const sources: string[] = [];
  const models = json(answers.models);
  const m = 'value' in models ? modelIdentityOf(models.value, model) : null;
  if ('value' in models) sources.push('GET /v1/models');
  const modelWhy = 'reason' in models ? `GET /v1/models: ${models.reason}` : m === null ? 'GET /v1/models lists no model' : null;
  if (m === null) for (const f of ['model_id', 'model_root', 'max_model_len', 'owned_by']) unknown[f] = modelWhy!;
  else {
    if (m.root === null) unknown.model_root = '/v1/models states no root';
    if (m.max_model_len === null) unknown.max_model_len = '/v1/models states no max_model_len';
    if (m.owned_by === null) unknown.owned_by = '/v1/models states no owned_by';
  }

  let engine: string | null = null;
  let version: string | null = null;
  let settings: Record<string, string> | null = null;
  const expositions = answers.metrics.filter((x) => x.answer.ok).map((x) => ({ source: x.source, expo: parseExposition((x.answer as { text: string }).text) }));
  for (const { expo } of expositions) {
    const id = engineIdentityOf(expo);
    if (id.engine === null || engine !== null) continue;
    engine = id.engine;
    version = id.version;
    settings = id.settings;
    sources.push(...id.sources);
  }
  const v = json(answers.version);
  const stated = 'value' in v ? versionOf(v.value) : null;
  if (version === null && stated !== null) {
    version = stated;
    sources.push('GET /version');
  }
  const tgi = (() => {
    const j = json(answers.info);
    return 'value' in j ? tgiInfoOf(j.value) : null;
  })();
  const llama = (() => {
    const j = json(answers.props);
    return 'value' in j ? llamaPropsOf(j.value) : null;
  })();
  const extra = tgi ? { id: 'tgi', source: 'GET /info', ...tgi } : llama ? { id: 'llamacpp', source: 'GET /props', ...llama } : null;
  if (extra && (engine === null || engine === extra.id)) {
    engine ??= extra.id;
    version ??= extra.version;
    if (Object.keys(extra.settings).length > 0) settings = { ...(settings ?? {}), ...extra.settings };
    sources.push(extra.source);
  }
  if (engine === null && m?.owned_by && ['vllm', 'sglang', 'llamacpp'].includes(m.owned_by)) {
    engine = m.owned_by;
    sources.push('owned_by of GET /v1/models (engine)');
  }
  const failed = answers.metrics.filter((x) => !x.answer.ok).map((x) => `${x.source}: ${(x.answer as { reason: string }).reason}`);
  if (engine === null) unknown.engine = failed.length > 0 ? `no engine named by ${failed.join('; ')}` : answers.metrics.length === 0 ? `${answers.gpuNote ?? 'no metrics read'}, and no metadata answer names one` : 'no known engine metrics (vLLM, SGLang, TGI, llama.cpp) and no metadata answer names one';
  if (version === null) unknown.engine_version = `the server states no version (GET /version: ${'reason' in v ? v.reason : 'no "version" field'})`;
  if (settings === null) unknown.engine_settings = NO_SETTINGS;

  let gpu = null as ReturnType<typeof gpuIdentityOf>;
  for (const { source, expo } of expositions) {
    const g = gpuIdentityOf(expo);
    if (g && gpu === null) {
      gpu = g;
      sources.push(`DCGM series (${source})`);
    }
  }
  const gpuWhy = answers.gpuNote ?? `no DCGM-named GPU series in ${answers.metrics.map((x) => x.source).join(', ') || 'any source'}`;
  if (gpu === null) for (const f of ['gpu_model', 'gpu_count', 'gpu_driver', 'gpu_memory_mib']) unknown[f] = gpuWhy;
  else {
    if (gpu.model === null) unknown.gpu_model = 'the GPU series carry no modelName label';
    if (gpu.driver === null) unknown.gpu_driver = 'the GPU series carry no DCGM_FI_DRIVER_VERSION label';
    if (gpu.memory_mib === null) unknown.gpu_memory_mib = 'no framebuffer series (DCGM_FI_DEV_FB_TOTAL, or _FB_USED and _FB_FREE)';
  }
  // A server's own words: URLs in them lose credentials, and so do settings under credential-like names.
  const server: ServerFingerprint = redactSecrets({
    model_id: m?.id ?? null,
    model_root: m?.root ?? null,
    max_model_len: m?.max_model_len ?? null,
    owned_by: m?.owned_by ?? null,
    engine,
    engine_version: version,
    engine_settings: settings,
    gpu_model: gpu?.model ?? null,
    gpu_count: gpu?.count ?? null,
    gpu_driver: gpu?.driver ?? null,
    gpu_memory_mib: gpu?.memory_mib ?? null,
  });
  return {
    server,
    unknown,
    sources,
  };
}

/** One bounded GET; a failure is its reason in a few words. */
async function probe(url: URL, headers: Record<string, string>, insecureTls: boolean, timeoutMs: number, maxBytes: number, proxy: ProxySettings | null): Promise<ProbeAnswer> {
  try {
    const r = await getText(url, { timeoutMs, maxBytes, headers, insecureTls, proxy });
    if (r.status !== 200) return { ok: false, reason: `HTTP ${r.status}` };
    return { ok: true, text: r.body };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, reason: e.code === 'ETIMEDOUT' ? `no answer within ${timeoutMs} ms` : (e.code ?? e.message.split('\n')[0] ?? 'failed') };
  }
}

export interface CaptureOptions {
  baseUrl: string;
  /** The served model (pre-flight's), whose /v1/models entry is read. */
  model: string | null;
  observe: ObserveSpec;
  /** The run's request headers with its API key (the metadata endpoints sit behind the same auth as the API). */
  headers: Record<string, string>;
  insecureTls: boolean;
  /** HTTP(S)_PROXY / NO_PROXY (util/proxy.ts); absent: direct. */
  proxy?: ProxySettings | null;
  envPath?: string;
  timeoutMs?: number;
}

/** The fingerprint of a run against a server over HTTP. */
export async function captureEnvironment(o: CaptureOptions): Promise<RunEnvironment> {
  const t = o.timeoutMs ?? PROBE_TIMEOUT_MS;
  const get = (path: string) => probe(endpointUrl(o.baseUrl, path), o.headers, o.insecureTls, t, 1024 * 1024, o.proxy ?? null);
  const urls = metricsUrls(o.observe, o.baseUrl);
  const metricTargets = o.observe.metrics ? [...urls.engine, ...urls.dcgm] : urls.dcgm;
  const smiWanted = o.observe.metrics && o.observe.nvidia_smi !== false && nvidiaSmiWanted(o.observe, o.baseUrl);
  const smi = smiWanted ? findNvidiaSmi(o.envPath) : null;
  const metrics = Promise.all([
    ...metricTargets.map(async (url) => ({ source: redactUrl(url), answer: await probe(new URL(url), { accept: 'text/plain' }, o.insecureTls, t, 16 * 1024 * 1024, o.proxy ?? null) })),
    ...(smi
      ? [
          sampleNvidiaSmiIdentity(smi, t).then(
            (text): { source: string; answer: ProbeAnswer } => ({ source: 'nvidia-smi', answer: { ok: true, text } }),
            (err: Error): { source: string; answer: ProbeAnswer } => ({ source: 'nvidia-smi', answer: { ok: false, reason: err.message.split('\n')[0] ?? 'failed' } }),
          ),
        ]
      : []),
  ]);
  const [models, version, info, props, scraped, host] = await Promise.all([get('/v1/models'), get('/version'), get('/info'), get('/props'), metrics, clientFingerprint(t)]);
  const gpuNote = !o.observe.metrics && urls.dcgm.length === 0
    ? '--no-metrics: no metrics read'
    : smiWanted && !smi && urls.dcgm.length === 0
      ? 'no DCGM series (--dcgm-url) and nvidia-smi is not on PATH'
      : null;
  const server = serverFingerprintOf({ models, version, info, props, metrics: scraped, gpuNote }, o.model);
  return { version: ENVIRONMENT_VERSION, server: server.server, client: host.client, unknown: { ...server.unknown, ...host.unknown }, sources: server.sources };
}

/**
 * The fingerprint of `sim run` (virtual time, no server): the texts the simulator would serve —
 * its /v1/models answer, its info series and GPU identity (sim/identity.ts) — read by the same
 * parser as a real server's, so a virtual run records the same fields as the simulator over HTTP.
 */
export async function simulatedEnvironment(timing: TimingOptions, preset: string | null, model: string, maxModelLenOverride: number | null): Promise<RunEnvironment> {
  const identity = simIdentity(timing, preset);
  const maxModelLen = maxModelLenOverride ?? identity.maxModelLen;
  const none: ProbeAnswer = { ok: false, reason: 'not served by the simulator' };
  const answers: ServerAnswers = {
    models: { ok: true, text: modelsBody(model, maxModelLen, 'vllm') },
    version: { ok: true, text: JSON.stringify({ version: identity.version }) },
    info: none,
    props: none,
    metrics: [{ source: 'the simulated engine', answer: { ok: true, text: identityExposition(identity) } }],
    gpuNote: timing.kind === 'fixed' ? 'fixed-delay simulator: no GPU is modelled' : null,
  };
  const server = serverFingerprintOf(answers, model);
  const host = await clientFingerprint(PROBE_TIMEOUT_MS);
  return { version: ENVIRONMENT_VERSION, server: server.server, client: host.client, unknown: { ...server.unknown, ...host.unknown }, sources: server.sources };
}

/** The fingerprint of `sim run` / `sim sweep` for a spec: the engine timing they drive in virtual time. */
export function virtualEnvironment(spec: RunSpec, model: string): Promise<RunEnvironment> {
  return simulatedEnvironment({ kind: 'engine', hardware: spec.sim.hardware, model, engine: simEngine(spec.sim, model) }, spec.sim.engine_preset, model, spec.sim.max_model_len);
}

/** The fingerprint of the target a run (or a sweep) opened: the one call every HTTP session makes before its load. */
export function captureTargetEnvironment(spec: RunSpec, target: Pick<OpenTarget, 'baseUrl' | 'model' | 'apiKey'> & Partial<Pick<OpenTarget, 'proxy'>>, ctx: SessionContext): Promise<RunEnvironment> {
  const headers: Record<string, string> = { ...spec.target.headers };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const envPath = envOf(ctx).PATH;
  return captureEnvironment({ baseUrl: target.baseUrl, model: target.model, observe: spec.observe, headers, insecureTls: spec.target.tls_insecure, proxy: target.proxy ?? null, ...(envPath !== undefined ? { envPath } : {}) });
}
