/**
 * Pre-flight: before any load, check the endpoint is reachable, the model exists (or pick
 * the first one served) and one request streams content. Every failure is a UserError with
 * one line naming the URL and what to fix — a run against a broken target is never started.
 */
import { UserError } from '../errors/user-error.js';
import { emptyRecord } from '../record/record.js';
import { endpointUrl } from './endpoint-url.js';
import { getJson, type GetJsonResult } from './get-json.js';
import { HttpTarget, type TargetConfig } from './http-client.js';

export interface PreflightResult {
  model: string;
  /** Models the server lists (empty if /v1/models is not served). */
  models: string[];
  /** TTFT of the probe request, ms. */
  probe_ttft_ms: number | null;
  /** Whether the server sent `usage` in the stream when asked. */
  usage_in_stream: boolean;
}

async function listModels(baseUrl: string, headers: Record<string, string>, timeoutMs: number, insecureTls: boolean): Promise<string[] | null> {
  const url = endpointUrl(baseUrl, '/v1/models');
  let res: GetJsonResult;
  try {
    res = await getJson(url, headers, timeoutMs, insecureTls);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UserError(`--base-url ${baseUrl}: cannot reach the server (${e.code ?? e.message}); is it running?`);
  }
  if (res.status === 401 || res.status === 403) {
    throw new UserError(`--base-url ${baseUrl}: GET /v1/models answered HTTP ${res.status}; set the API key in the environment variable named by --api-key-env`);
  }
  // Some servers do not serve /v1/models; then the probe request decides.
  if (res.status !== 200 || typeof res.json !== 'object' || res.json === null) return null;
  const data = (res.json as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  return data.map((m: { id?: unknown }) => m?.id).filter((id): id is string => typeof id === 'string');
}

/** `cfg.model` null: take the first model the server lists. */
export async function preflight(cfg: Omit<TargetConfig, 'model'> & { model: string | null }): Promise<PreflightResult> {
  const authHeaders: Record<string, string> = { ...cfg.headers };
  if (cfg.apiKey) authHeaders.authorization = `Bearer ${cfg.apiKey}`;
  const probeTimeout = Math.min(cfg.timeoutMs, 60_000);
  const models = await listModels(cfg.baseUrl, authHeaders, Math.min(probeTimeout, 15_000), cfg.insecureTls ?? false);
  let model = cfg.model;
  if (model === null) {
    if (!models || models.length === 0) throw new UserError(`--model: not given and ${cfg.baseUrl}/v1/models lists no model; pass --model NAME`);
    model = models[0]!;
  } else if (models && models.length > 0 && !models.includes(model)) {
    throw new UserError(`--model ${model}: not served by ${cfg.baseUrl} (it serves: ${models.slice(0, 5).join(', ')}${models.length > 5 ? ', …' : ''})`);
  }

  const start = performance.now();
  const target = new HttpTarget({ ...cfg, model, timeoutMs: probeTimeout, keepText: false }, () => performance.now() - start);
  try {
    const rec = await target.send(emptyRecord(0, 0), target.prepare({
      prompt: 'Say hello.',
      messages: null,
      prompt_tokens: null,
      max_tokens: 4,
      task: null,
      expected: null,
      session: null,
      turn: null,
    }));
    if (rec.status !== 'ok') {
      const where = `${cfg.baseUrl}${cfg.path}`;
      throw new UserError(`pre-flight request to ${where} failed: ${rec.error_message ?? rec.error_class ?? rec.status}`);
    }
    return {
      model,
      models: models ?? [],
      probe_ttft_ms: rec.first_token_ms === null ? null : rec.first_token_ms - rec.sent_ms,
      usage_in_stream: rec.token_source === 'usage',
    };
  } finally {
    target.close();
  }
}
