/**
 * Pre-flight: before any load, check the endpoint is reachable, the model exists (or pick the
 * first one served), read the context length the server states, and send a probe that must
 * stream content. Transient faults (429, 5xx, resets, stalls) are retried within PREFLIGHT_RETRY's
 * bound; anything else, or a fault that outlasts the bound, is a UserError with one line naming
 * the URL, what was received, and what to fix — a run against a broken target is never started.
 */
import { UserError } from '../errors/user-error.js';
import { emptyRecord, type RequestRecord } from '../record/record.js';
import { endpointUrl } from './endpoint-url.js';
import { resolveEndpointKind } from './endpoints/registry.js';
import { bodyPreview, HttpTarget, type TargetConfig } from './http-client.js';
import { requestJson, type JsonAnswer } from './http-json.js';
import { calibratePrompts, probeMessages, probePrompt, PROBE_PROMPT_TOKENS, type PromptCalibration } from './prompt-calibration.js';
import { ProxyError, proxyAuthMessage, proxyRoute, type ProxySettings } from '../util/proxy.js';
import type { WorkItem } from '../workload/types.js';
import { synthWav } from '../workload/media/audio.js';
import { audioDurationS } from '../util/media.js';
import { PREFLIGHT_RETRY, realSleep, transientNetworkError, transientStatus, withRetries, type Attempt, type RetryPolicy, type Sleep } from './retry.js';

export type { PromptCalibration } from './prompt-calibration.js';

export interface PreflightResult {
  model: string;
  /** Models the server lists (empty if /v1/models is not served). */
  models: string[];
  /** TTFT of the probe request, ms. */
  probe_ttft_ms: number | null;
  /** Whether the server sent `usage` in the stream when asked. */
  usage_in_stream: boolean;
  /** The model's context length as the server states it (vLLM/SGLang `max_model_len`); null when unstated. */
  max_model_len: number | null;
  /** What each retried try saw (empty when every step succeeded at once). */
  retried: string[];
  /** How the server counts synthetic prompt text, when it could be measured. */
  prompt_calibration: PromptCalibration | null;
}

export interface PreflightOptions {
  retry?: RetryPolicy;
  /** Injected by tests, so backoff costs no real time. */
  sleep?: Sleep;
  /** Progress lines (a retry, a calibration). */
  log?: (line: string) => void;
  /** Measure how the server counts prompt text (/tokenize, else a second probe). */
  calibrate?: boolean;
}

interface ModelInfo {
  id: string;
  maxModelLen: number | null;
}

/**
 * A 404 or 405 from the endpoint while /v1/models answered: the server is there, the path is not
 * one it serves, so the message names --endpoint (the path is the likelier mistake than the server).
 */
function endpointHint(status: number | null, path: string, kind: string): string {
  if (status !== 404 && status !== 405) return '';
  // Another API than OpenAI's (an engine's native one, rerank…): the likelier mistake is the kind.
  if (kind !== 'completions' && kind !== 'chat') return `; the server does not serve the ${kind} API at --endpoint ${path}: check --endpoint-type (the API the server speaks) and --endpoint`;
  const other = /chat\/completions$/.test(path) ? '/v1/completions' : '/v1/chat/completions';
  return `; the server does not serve --endpoint ${path}: check --endpoint (e.g. ${other}) and --base-url`;
}

/** "HTTP 404, text/html: "<!DOCTYPE html>…"" — what an answer was, in a few words. */
export function describeAnswer(a: Pick<JsonAnswer, 'status' | 'contentType' | 'text'>): string {
  return `HTTP ${a.status}${a.contentType ? `, ${a.contentType}` : ''}: ${JSON.stringify(bodyPreview(a.text, 80))}`;
}

function retriedNote(seen: string[], waitedMs: number): string {
  return seen.length > 1 ? ` (${seen.length} tries over ${(waitedMs / 1000).toFixed(1)} s: ${seen.join('; ')})` : '';
}

async function listModels(baseUrl: string, headers: Record<string, string>, timeoutMs: number, insecureTls: boolean, proxy: ProxySettings | null, o: Required<Omit<PreflightOptions, 'calibrate'>>, retried: string[]): Promise<{ models: ModelInfo[] | null; answer: JsonAnswer }> {
  const url = endpointUrl(baseUrl, '/v1/models');
  const route = proxyRoute(url, proxy);
  const r = await withRetries(
    async (): Promise<Attempt<JsonAnswer>> => {
      try {
        const a = await requestJson({ method: 'GET', url, headers, timeoutMs, insecureTls, proxy });
        // The proxy's own refusal (an http:// target through it): not the server's answer.
        if (route && a.status === 407) return { ok: false, seen: 'HTTP 407 from the proxy', transient: false, error: () => new UserError(proxyAuthMessage(route)) };
        if (transientStatus(a.status)) return { ok: false, seen: describeAnswer(a), transient: true, retryAfterMs: a.retryAfterMs, error: () => new UserError(`--base-url ${baseUrl}: GET /v1/models answered ${describeAnswer(a)}`) };
        return { ok: true, value: a };
      } catch (err) {
        // Through a proxy: the line names the proxy (unreachable, 407, CONNECT refused), not the target.
        if (err instanceof ProxyError) return { ok: false, seen: err.code, transient: err.code === 'PROXY_UNREACHABLE' && !/ECONNREFUSED/.test(err.message), error: () => new UserError(`${err.message} (for --base-url ${baseUrl})`) };
        const e = err as NodeJS.ErrnoException;
        const what = e.code ?? e.message;
        return { ok: false, seen: what, transient: transientNetworkError(e.code), error: () => new UserError(`--base-url ${baseUrl}: cannot reach the server (${what}); is it running?`) };
      }
    },
    o.retry,
    o.sleep,
    (seen, waitMs, tryNo) => o.log(`pre-flight: GET /v1/models: ${seen}; retrying in ${(waitMs / 1000).toFixed(1)} s (try ${tryNo + 1} of ${o.retry.attempts})`),
  );
  if ('failed' in r) {
    const err = r.failed.error();
    throw new UserError(`${err.message}${retriedNote(r.log.seen, r.log.waitedMs)}`);
  }
  retried.push(...r.log.seen);
  const a = r.value;
  if (a.status === 401 || a.status === 403) {
    throw new UserError(`--base-url ${baseUrl}: GET /v1/models answered ${describeAnswer(a)}; set the API key in the environment variable named by --api-key-env`);
  }
  // Some servers do not serve /v1/models; then the probe request decides.
  if (a.status !== 200 || typeof a.json !== 'object' || a.json === null) return { models: null, answer: a };
  const data = (a.json as { data?: unknown }).data;
  if (!Array.isArray(data)) return { models: null, answer: a };
  const models: ModelInfo[] = [];
  for (const m of data as Array<Record<string, unknown> | null>) {
    if (typeof m?.id !== 'string') continue;
    const len = m.max_model_len;
    models.push({ id: m.id, maxModelLen: typeof len === 'number' && Number.isInteger(len) && len > 0 ? len : null });
  }
  return { models, answer: a };
}

/** One second of the random-audio dataset's seeded WAV: a transcription's pre-flight probe. */
function probeClip(): NonNullable<WorkItem['media']>[number] {
  const b = synthWav(1000, 1);
  return { type: 'audio', format: 'wav', data: b.toString('base64'), bytes: b.length, duration_s: audioDurationS(b) };
}

/** `cfg.model` null: take the first model the server lists. */
export async function preflight(cfg: Omit<TargetConfig, 'model'> & { model: string | null }, opts: PreflightOptions = {}): Promise<PreflightResult> {
  const o = { retry: opts.retry ?? PREFLIGHT_RETRY, sleep: opts.sleep ?? realSleep, log: opts.log ?? (() => {}) };
  const kind = resolveEndpointKind(cfg.endpointType, cfg.path);
  const authHeaders: Record<string, string> = { ...kind.headers, ...cfg.headers };
  if (cfg.apiKey) Object.assign(authHeaders, kind.authHeaders(cfg.apiKey));
  // Each try is bounded too, so a stalled server costs at most attempts × this.
  const probeTimeout = Math.min(cfg.timeoutMs, 30_000);
  const retried: string[] = [];
  const { models, answer } = await listModels(cfg.baseUrl, authHeaders, Math.min(probeTimeout, 15_000), cfg.insecureTls ?? false, cfg.proxy ?? null, o, retried);
  let model = cfg.model;
  if (model === null) {
    if (!models || models.length === 0) {
      const got = models ? 'an empty list' : describeAnswer(answer);
      throw new UserError(`--model: not given, and ${cfg.baseUrl}/v1/models lists no model (it answered ${got}); pass --model NAME, or check --base-url`);
    }
    model = models[0]!.id;
  } else if (models && models.length > 0 && !models.some((m) => m.id === model)) {
    throw new UserError(`--model ${model}: not served by ${cfg.baseUrl} (it serves: ${models.slice(0, 5).map((m) => m.id).join(', ')}${models.length > 5 ? ', …' : ''})`);
  }
  const maxModelLen = models?.find((m) => m.id === model)?.maxModelLen ?? null;

  const start = performance.now();
  const target = new HttpTarget({ ...cfg, model, timeoutMs: probeTimeout, keepText: false }, () => performance.now() - start);
  const where = `${cfg.baseUrl}${cfg.path}`;
  try {
    // A transcription's probe is a second of seeded audio (its text is not sent).
    const withAudio = (item: WorkItem): WorkItem => (kind.input === 'audio' ? { ...item, media: [probeClip()] } : item);
    const send = (tokens: number, maxTokens: number): Promise<RequestRecord> => target.send(emptyRecord(0, 0), target.prepare(withAudio(probePrompt(tokens, maxTokens))));
    const r = await withRetries(
      async (): Promise<Attempt<RequestRecord>> => {
        const rec = await send(PROBE_PROMPT_TOKENS, 4);
        if (rec.status === 'ok') return { ok: true, value: rec };
        const message = rec.error_message ?? rec.error_class ?? rec.status;
        const transient =
          rec.status === 'timeout' ||
          rec.error_class === 'disconnect' ||
          (rec.error_class === 'connect' && !/ECONNREFUSED/.test(message)) ||
          (rec.http_status !== null && rec.http_status !== 200 && transientStatus(rec.http_status));
        return { ok: false, seen: rec.http_status !== null && rec.http_status !== 200 ? `HTTP ${rec.http_status}` : (rec.error_class ?? rec.status), transient, retryAfterMs: rec.retry_after_ms ?? null, error: () => new UserError(`pre-flight request to ${where} failed: ${message}${endpointHint(rec.http_status, cfg.path, kind.name)}`) };
      },
      o.retry,
      o.sleep,
      (seen, waitMs, tryNo) => o.log(`pre-flight: probe request: ${seen}; retrying in ${(waitMs / 1000).toFixed(1)} s (try ${tryNo + 1} of ${o.retry.attempts})`),
    );
    if ('failed' in r) throw new UserError(`${r.failed.error().message}${retriedNote(r.log.seen, r.log.waitedMs)}`);
    retried.push(...r.log.seen);
    const rec = r.value;
    const sendMessages = (): Promise<RequestRecord> => target.send(emptyRecord(0, 0), target.prepare(probeMessages(1)));
    // How the server counts prompt text means nothing to a request whose prompt is audio.
    const calibration = opts.calibrate && kind.input !== 'audio'
      ? await calibratePrompts({ cfg: { ...cfg, model }, probe: rec, send, ...(target.kind.input === 'messages' ? { sendMessages } : {}), authHeaders })
      : null;
    return {
      model,
      models: models?.map((m) => m.id) ?? [],
      probe_ttft_ms: rec.first_token_ms === null ? null : rec.first_token_ms - rec.sent_ms,
      usage_in_stream: rec.token_source === 'usage',
      max_model_len: maxModelLen,
      retried,
      prompt_calibration: calibration,
    };
  } finally {
    target.close();
  }
}
