/**
 * How the server counts synthetic prompt text, so that prompts asked as N tokens arrive as N
 * tokens without a local tokenizer. Synthetic prompts are common English words that the
 * tokenizer-free estimate counts as one token each; a server's vocabulary may split some of them.
 *
 * 1. The server's own tokenizer when it offers one: POST /tokenize with vLLM's and SGLang's body
 *    (`{model, prompt, add_special_tokens: false}` → `{count, tokens, max_model_len}`), else
 *    llama.cpp's (`{content, add_special: false}` → `{tokens}`), on a 512-word sample.
 * 2. Else the slope of `usage.prompt_tokens` between the pre-flight probe (64 words) and a second
 *    probe (320 words): the difference cancels what the server adds to every prompt.
 * Either way, the probe's usage minus the scaled count of its text is the per-request overhead
 * (BOS, chat template) that the served-vs-asked check in the validity verdict allows for.
 * 3. Chat endpoints: one more probe of two messages (a system message and the first probe's user
 *    message) gives what the template adds for each further message: its usage minus the first
 *    probe's, minus the scaled count of the system message's text.
 */
import type { RequestRecord } from '../record/record.js';
import { createRng } from '../util/rng.js';
import { createTextMaker } from '../workload/synthetic.js';
import type { WorkItem } from '../workload/types.js';
import { endpointUrl } from './endpoint-url.js';
import type { TargetConfig } from './http-client.js';
import { requestJson } from './http-json.js';

export interface PromptCalibration {
  /** `tokenize`: the server's /tokenize; `usage`: two probes' usage.prompt_tokens. */
  source: 'tokenize' | 'usage';
  /** Server tokens per estimated token of synthetic text (1 = the estimate is exact for this server). */
  tokens_per_estimated_token: number;
  /** Tokens the server adds to each request's prompt text (BOS, chat template); null without usage. */
  overhead_tokens: number | null;
  /** Chat: tokens the template adds for each message after the first; null elsewhere or without usage. Absent in results before it. */
  per_message_tokens?: number | null;
}

/** Estimated tokens of the pre-flight probe's prompt and of the second (slope) probe. */
export const PROBE_PROMPT_TOKENS = 64;
const SLOPE_PROMPT_TOKENS = 320;
const TOKENIZE_SAMPLE_TOKENS = 512;
/** Estimated tokens of the system message of the two-message probe (chat). */
export const SYSTEM_PROBE_TOKENS = 32;
/** More template tokens per message than this means the measurement went wrong. */
const PLAUSIBLE_PER_MESSAGE = 64;
/** A ratio outside this range means the measurement went wrong, not that the vocabulary is odd. */
const PLAUSIBLE = { min: 0.25, max: 8 };

const maker = createTextMaker();

/** Synthetic text of `tokens` estimated tokens, the same every time. */
function sampleText(tokens: number): string {
  return maker.text(createRng(`calibration:${tokens}`), tokens);
}

export function probePrompt(tokens: number, maxTokens: number): WorkItem {
  return { prompt: sampleText(tokens), messages: null, prompt_tokens: tokens, max_tokens: maxTokens, task: null, expected: null, session: null, turn: null };
}

/** The two-message probe (chat): a system message, then the first probe's user message. */
export function probeMessages(maxTokens: number): WorkItem {
  const system = sampleText(SYSTEM_PROBE_TOKENS);
  const user = sampleText(PROBE_PROMPT_TOKENS);
  return {
    prompt: user,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    prompt_tokens: SYSTEM_PROBE_TOKENS + PROBE_PROMPT_TOKENS,
    max_tokens: maxTokens,
    task: null,
    expected: null,
    session: null,
    turn: null,
  };
}

/** Token count from a /tokenize answer of any of the known shapes, null when none fits. */
function tokenizeCount(json: unknown): number | null {
  if (typeof json !== 'object' || json === null) return null;
  const o = json as { count?: unknown; tokens?: unknown };
  if (typeof o.count === 'number' && o.count >= 0) return o.count;
  if (Array.isArray(o.tokens)) return o.tokens.length;
  return null;
}

async function serverTokenCount(cfg: Omit<TargetConfig, 'model'> & { model: string }, headers: Record<string, string>, text: string): Promise<number | null> {
  const url = endpointUrl(cfg.baseUrl, '/tokenize');
  const bodies = [
    { model: cfg.model, prompt: text, add_special_tokens: false },
    { content: text, add_special: false },
  ];
  for (const body of bodies) {
    try {
      const a = await requestJson({ method: 'POST', url, headers, body, timeoutMs: Math.min(cfg.timeoutMs, 10_000), insecureTls: cfg.insecureTls ?? false, proxy: cfg.proxy ?? null });
      if (a.status === 404 || a.status === 405) return null; // not served: the other body will not help
      // llama.cpp answers a body without `content` with an empty list: try its own body next.
      const n = a.status === 200 ? tokenizeCount(a.json) : null;
      if (n !== null && n > 0) return n;
    } catch {
      return null;
    }
  }
  return null;
}

function plausible(r: number): boolean {
  return Number.isFinite(r) && r >= PLAUSIBLE.min && r <= PLAUSIBLE.max;
}

export async function calibratePrompts(o: {
  cfg: Omit<TargetConfig, 'model'> & { model: string };
  /** The pre-flight probe (PROBE_PROMPT_TOKENS estimated tokens), already answered. */
  probe: RequestRecord;
  send: (tokens: number, maxTokens: number) => Promise<RequestRecord>;
  /** Chat endpoints: sends probeMessages (the per-message overhead); absent elsewhere. */
  sendMessages?: () => Promise<RequestRecord>;
  authHeaders: Record<string, string>;
}): Promise<PromptCalibration | null> {
  const usage1 = o.probe.token_source === 'usage' && o.probe.prompt_tokens !== null ? o.probe.prompt_tokens : null;
  let source: PromptCalibration['source'];
  let ratio: number;
  const counted = await serverTokenCount(o.cfg, o.authHeaders, sampleText(TOKENIZE_SAMPLE_TOKENS));
  if (counted !== null && plausible(counted / TOKENIZE_SAMPLE_TOKENS)) {
    source = 'tokenize';
    ratio = counted / TOKENIZE_SAMPLE_TOKENS;
  } else if (usage1 !== null) {
    const second = await o.send(SLOPE_PROMPT_TOKENS, 1);
    if (second.status !== 'ok' || second.token_source !== 'usage' || second.prompt_tokens === null) return null;
    source = 'usage';
    ratio = (second.prompt_tokens - usage1) / (SLOPE_PROMPT_TOKENS - PROBE_PROMPT_TOKENS);
    if (!plausible(ratio)) return null;
  } else return null;
  const overhead = usage1 === null ? null : usage1 - Math.round(PROBE_PROMPT_TOKENS * ratio);
  let perMessage: number | null = null;
  if (o.sendMessages && usage1 !== null) {
    const two = await o.sendMessages();
    if (two.status === 'ok' && two.token_source === 'usage' && two.prompt_tokens !== null) {
      const pm = two.prompt_tokens - usage1 - Math.round(SYSTEM_PROBE_TOKENS * ratio);
      if (pm >= 0 && pm <= PLAUSIBLE_PER_MESSAGE) perMessage = pm;
    }
  }
  const calibration: PromptCalibration = { source, tokens_per_estimated_token: Math.round(ratio * 1e4) / 1e4, overhead_tokens: overhead };
  if (o.sendMessages) calibration.per_message_tokens = perMessage;
  return calibration;
}
