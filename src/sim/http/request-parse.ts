/**
 * Turns an OpenAI request body into what the simulator needs: which API, model, streaming
 * and usage flags, the output length limit, and the prompt's token count and KV block hashes.
 * Validation mirrors vLLM's 400s for the fields we read; everything else is ignored.
 */
import { CHAT_TOKENS_PER_MESSAGE, estimateTokens } from '../text.js';
import { audioDurationS, audioTokens, imageSize, imageTokens, sniffAudio, sniffImage, UNSEEN_IMAGE_PX } from '../../util/media.js';
import type { Api } from './wire.js';
import { formBoundary, MultipartError, parseMultipart } from './multipart.js';

export interface ParsedRequest {
  api: Api;
  /** Embeddings: inputs in the batch (1 for the generation APIs). */
  inputs: number;
  /** null when the body names no model (we then serve the default one). */
  model: string | null;
  stream: boolean;
  includeUsage: boolean;
  /** null when the body sets no limit. */
  maxTokens: number | null;
  ignoreEos: boolean;
  promptTokens: number;
  /** Chained hashes of the prompt's full blocks (see blockHashes). */
  blockHashes: number[];
  /** The text the answer mode looks up: the prompt (completions) or the last user message (chat); null for token ids. */
  promptText: string | null;
  /** Transcription: the audio's seconds (its unary answer's `usage`). */
  audioSeconds?: number;
}

export class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly type = 'BadRequestError',
    readonly code: string | number | null = 400,
  ) {
    super(message);
  }
}

/** Characters per KV block: blockSize tokens × 4 chars/token (the estimate of text.ts). */
const CHARS_PER_TOKEN = 4;

/**
 * Prefix-cache keys of a prompt, like vLLM's block hashes: hash(i) = H(hash(i−1), block i's
 * content), for full blocks only, so two prompts share hash i iff they share the first
 * (i+1)·blockSize tokens. H is FNV-1a (32 bit). Text is cut every blockSize·4 characters.
 */
export function blockHashes(prompt: string | readonly number[], blockSize: number): number[] {
  const out: number[] = [];
  let parent = 0x811c9dc5;
  if (typeof prompt === 'string') {
    const step = blockSize * CHARS_PER_TOKEN;
    for (let start = 0; start + step <= prompt.length; start += step) {
      let h = parent;
      for (let i = start; i < start + step; i++) h = Math.imul(h ^ prompt.charCodeAt(i), 0x01000193);
      parent = h >>> 0;
      out.push(parent);
    }
  } else {
    for (let start = 0; start + blockSize <= prompt.length; start += blockSize) {
      let h = parent;
      for (let i = start; i < start + blockSize; i++) h = Math.imul(h ^ (prompt[i] as number), 0x01000193);
      parent = h >>> 0;
      out.push(parent);
    }
  }
  return out;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * A boolean as vLLM's request models (pydantic, lax mode) read it: true/false, 0/1, or one of
 * pydantic's words; anything else is a 400 with pydantic's message.
 */
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function boolField(body: Record<string, unknown>, name: string, model: string): boolean {
  const v = body[name];
  if (v === undefined || v === null || v === false || v === 0) return false;
  if (v === true || v === 1) return true;
  if (typeof v === 'string') {
    const w = v.trim().toLowerCase();
    if (TRUE_WORDS.has(w)) return true;
    if (FALSE_WORDS.has(w)) return false;
    throw new BadRequest(`1 validation error for ${model}\n${name}\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=${JSON.stringify(v)}, input_type=str]`);
  }
  throw new BadRequest(`1 validation error for ${model}\n${name}\n  Input should be a valid boolean [type=bool_type, input_value=${JSON.stringify(v)}, input_type=${typeof v}]`);
}

/**
 * vLLM's length check, in its words: the prompt must leave room for an output token, and an
 * explicit max_tokens must fit in what the prompt leaves of the context. Returns the output limit
 * to use (without max_tokens: the default, capped at what the context leaves).
 */
export function checkContext(promptTokens: number, maxTokens: number | null, maxModelLen: number, defaultMaxTokens: number): number {
  if (promptTokens >= maxModelLen) {
    throw new BadRequest(`This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`);
  }
  if (maxTokens === null) return Math.min(defaultMaxTokens, maxModelLen - promptTokens);
  if (promptTokens + maxTokens > maxModelLen) {
    throw new BadRequest(
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${maxModelLen} - ${promptTokens}).`,
    );
  }
  return maxTokens;
}

function intField(body: Record<string, unknown>, name: string): number | null {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new BadRequest(`${name} must be an integer ≥ 1, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Base64 characters decoded to read an image's header: 96 Ki characters hold 72 KiB, past a JPEG's EXIF block. */
const HEADER_B64_CHARS = 96 * 1024;

/**
 * The prompt tokens of a message's image and audio parts, by the simulator's rule (util/media.ts:
 * ⌈w/28⌉·⌈h/28⌉ per image, 25 per second of audio), and a mark of each part's identity for the
 * prefix-cache hashes. A data URL or audio that is not an image/audio is a 400, as vLLM answers;
 * a remote image URL is not fetched and counts as 512×512.
 */
function mediaParts(content: unknown): { tokens: number; marks: string } {
  let tokens = 0;
  let marks = '';
  if (!Array.isArray(content)) return { tokens, marks };
  for (const p of content) {
    if (!isObject(p)) continue;
    if (p['type'] === 'image_url') {
      const iu = p['image_url'];
      const url = isObject(iu) ? iu['url'] : typeof iu === 'string' ? iu : undefined;
      if (typeof url !== 'string' || url === '') throw new BadRequest('image_url.url must be a non-empty string');
      let w = UNSEEN_IMAGE_PX;
      let h = UNSEEN_IMAGE_PX;
      if (url.startsWith('data:')) {
        const comma = url.indexOf(',');
        const head = Buffer.from(url.slice(comma + 1, comma + 1 + HEADER_B64_CHARS), 'base64');
        if (comma < 0 || sniffImage(head) === null) throw new BadRequest('Failed to load image: the data URL is not a PNG, JPEG, GIF or WebP image');
        const size = imageSize(head);
        if (size) ({ width: w, height: h } = size);
      }
      tokens += imageTokens(w, h);
      marks += `<image ${url.length}:${url.slice(-48)}>`;
    } else if (p['type'] === 'input_audio') {
      const ia = p['input_audio'];
      const data = isObject(ia) ? ia['data'] : undefined;
      if (typeof data !== 'string' || data === '') throw new BadRequest('input_audio.data must be a non-empty base64 string');
      const bytes = Buffer.from(data, 'base64');
      if (sniffAudio(bytes) === null) throw new BadRequest('Failed to load audio: input_audio.data is not WAV, MP3, FLAC or Ogg audio');
      tokens += audioTokens(audioDurationS(bytes));
      marks += `<audio ${data.length}:${data.slice(-48)}>`;
    }
  }
  return { tokens, marks };
}

/** Message content: a string, or OpenAI's array of parts (text parts are counted). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  }
  return '';
}

/**
 * Prompt forms: a string; an array of strings (joined — the simulator answers with one choice);
 * an array of token ids (its length is the token count); an array of token-id arrays (flattened).
 */
function completionPrompt(p: unknown, count: TokenCounter): { text: string | number[]; tokens: number } {
  if (typeof p === 'string') return { text: p, tokens: count(p) };
  if (Array.isArray(p) && p.length > 0) {
    if (p.every((x) => typeof x === 'string')) {
      const t = (p as string[]).join('');
      return { text: t, tokens: count(t) };
    }
    if (p.every((x) => typeof x === 'number')) return { text: p as number[], tokens: p.length };
    if (p.every((x) => Array.isArray(x) && x.every((y) => typeof y === 'number'))) {
      const ids = (p as number[][]).flat();
      return { text: ids, tokens: ids.length };
    }
  }
  throw new BadRequest('prompt must be a non-empty string, array of strings, or array of token ids');
}

/** The request model vLLM names in its validation errors. */
const REQUEST_MODELS: Readonly<Record<Api, string>> = {
  completions: 'CompletionRequest',
  chat: 'ChatCompletionRequest',
  embeddings: 'EmbeddingRequest',
  responses: 'ResponsesRequest',
  messages: 'AnthropicMessagesRequest',
  tgi: 'GenerateRequest',
  sglang: 'GenerateReqInput',
  triton: 'generate_request',
  rerank: 'RerankRequest',
  score: 'ScoreRequest',
  transcription: 'TranscriptionRequest',
};

/**
 * Rerank (`query`, `documents`) and score (`text_1`, `text_2`): each document is scored with the
 * query, so each costs the query's tokens and its own (a cross-encoder reads the pair).
 */
function scoredPairs(api: 'rerank' | 'score', body: Record<string, unknown>, count: TokenCounter): { inputs: number; tokens: number } {
  const [qf, df] = api === 'rerank' ? ['query', 'documents'] : ['text_1', 'text_2'];
  const q = body[qf];
  if (typeof q !== 'string') throw new BadRequest(`${qf}: must be a string`);
  const d = typeof body[df] === 'string' ? [body[df]] : body[df];
  if (!Array.isArray(d) || d.length === 0 || !d.every((x) => typeof x === 'string')) throw new BadRequest(`${df}: must be a non-empty list of strings`);
  const qt = count(q);
  return { inputs: d.length, tokens: (d as string[]).reduce((n, t) => n + qt + count(t), 0) };
}

/** The native APIs' prompt field and output bound: TGI `inputs` + `parameters.max_new_tokens`, SGLang `text` + `sampling_params`, Triton `text_input` + `max_tokens`. */
const NATIVE_FIELDS = {
  tgi: { prompt: 'inputs', params: 'parameters', max: 'max_new_tokens' },
  sglang: { prompt: 'text', params: 'sampling_params', max: 'max_new_tokens' },
  triton: { prompt: 'text_input', params: null, max: 'max_tokens' },
} as const;

/**
 * The native APIs' bodies read into the fields the OpenAI ones give: stream (TGI's and Triton's
 * generate_stream paths always stream), max tokens, ignore_eos (SGLang's sampling_params), the prompt.
 */
function nativeBody(api: 'tgi' | 'sglang' | 'triton', body: Record<string, unknown>, streamPath: boolean): Record<string, unknown> {
  const f = NATIVE_FIELDS[api];
  const params = f.params === null ? body : body[f.params];
  if (params !== undefined && params !== null && !isObject(params)) throw new BadRequest(`${f.params}: must be an object`);
  const p = params ?? {};
  if (typeof body[f.prompt] !== 'string') throw new BadRequest(`${f.prompt}: must be a string`);
  return {
    prompt: body[f.prompt],
    stream: api === 'sglang' ? (body['stream'] ?? false) : streamPath,
    max_tokens: p[f.max] ?? null,
    ignore_eos: api === 'sglang' ? (p['ignore_eos'] ?? false) : false,
  };
}

/** Anthropic's top-level `system` (a string or text blocks) as a first system message. */
function withSystem(system: unknown, messages: unknown): unknown {
  if (system === undefined || system === null || !Array.isArray(messages)) return messages;
  return [{ role: 'system', content: system }, ...(messages as unknown[])];
}

/** The Responses API's `input`: a string (one user message) or a list of messages; `instructions` as a system message. */
function responsesInput(input: unknown, instructions: unknown): unknown {
  const msgs = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  if (typeof instructions !== 'string' || !Array.isArray(msgs)) return msgs;
  return [{ role: 'system', content: instructions }, ...(msgs as unknown[])];
}

/** Embeddings `input`: a string, strings, token ids, or lists of token ids; each is one input. */
function embeddingInputs(input: unknown, count: TokenCounter): { inputs: number; tokens: number } {
  if (typeof input === 'string') return { inputs: 1, tokens: count(input) };
  if (Array.isArray(input) && input.length > 0) {
    if (input.every((x) => typeof x === 'string')) return { inputs: input.length, tokens: (input as string[]).reduce((n, t) => n + count(t), 0) };
    if (input.every((x) => typeof x === 'number')) return { inputs: 1, tokens: input.length };
    if (input.every((x) => Array.isArray(x) && x.every((y) => typeof y === 'number'))) return { inputs: input.length, tokens: (input as number[][]).reduce((n, t) => n + t.length, 0) };
  }
  throw new BadRequest('input must be a non-empty string, array of strings, or array of token ids');
}

/** Counts the tokens of a text; the default is the ⌈chars / 4⌉ estimate of text.ts. */
export type TokenCounter = (text: string) => number;

/** `streamPath`: the request came to a path that always streams (TGI's and Triton's generate_stream). */
export function parseRequest(pathApi: Api, raw: string, blockSize: number, count: TokenCounter = estimateTokens, streamPath = false): ParsedRequest {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new BadRequest('request body is not valid JSON');
  }
  if (!isObject(body)) throw new BadRequest('request body must be a JSON object');
  // /generate is SGLang's and TGI's unary one: a TGI body (`inputs`, no `text`) is TGI's.
  const api: Api = pathApi === 'sglang' && 'inputs' in body && !('text' in body) ? 'tgi' : pathApi;
  if (api === 'tgi' || api === 'sglang' || api === 'triton') body = nativeBody(api, body, streamPath);
  if (!isObject(body)) throw new BadRequest('request body must be a JSON object');
  const model = body['model'];
  if (model !== undefined && model !== null && typeof model !== 'string') throw new BadRequest('model must be a string');
  const requestModel = REQUEST_MODELS[api];
  const pooling = api === 'embeddings' || api === 'rerank' || api === 'score';
  const stream = !pooling && boolField(body, 'stream', requestModel);
  const ignoreEos = boolField(body, 'ignore_eos', requestModel);
  const so = body['stream_options'];
  // The Responses and Messages APIs always report usage at the end of a stream.
  const includeUsage = api === 'responses' || api === 'messages' || (isObject(so) && so['include_usage'] === true);
  let maxTokens = intField(body, api === 'responses' ? 'max_output_tokens' : 'max_tokens');
  if (api === 'chat') maxTokens = intField(body, 'max_completion_tokens') ?? maxTokens;
  if (api === 'messages' && maxTokens === null) throw new BadRequest('max_tokens: Field required');

  let promptTokens: number;
  let hashes: number[];
  let promptText: string | null = null;
  let inputs = 1;
  const messages = api === 'chat' ? body['messages'] : api === 'messages' ? withSystem(body['system'], body['messages']) : api === 'responses' ? responsesInput(body['input'], body['instructions']) : null;
  if (messages !== null) {
    const msgs = messages;
    if (!Array.isArray(msgs) || msgs.length === 0) throw new BadRequest(`${api === 'responses' ? 'input' : 'messages'} must be a non-empty array`);
    let text = '';
    promptTokens = 0;
    for (const m of msgs) {
      if (!isObject(m) || typeof m['role'] !== 'string') throw new BadRequest('each message needs a role');
      const c = contentText(m['content']);
      const media = api === 'chat' ? mediaParts(m['content']) : null;
      text += `<${m['role']}>${c}${media?.marks ?? ''}`;
      if (m['role'] === 'user') promptText = c;
      promptTokens += count(c) + CHAT_TOKENS_PER_MESSAGE + (media?.tokens ?? 0);
    }
    hashes = blockHashes(text, blockSize);
  } else if (pooling) {
    const e = api === 'embeddings' ? embeddingInputs(body['input'], count) : scoredPairs(api, body, count);
    promptTokens = e.tokens;
    inputs = e.inputs;
    // Pooling runs the whole prompt every time: nothing to reuse from a prefix cache.
    hashes = [];
  } else {
    const p = completionPrompt(body['prompt'], count);
    promptTokens = p.tokens;
    hashes = blockHashes(p.text, blockSize);
    if (typeof p.text === 'string') promptText = p.text;
  }
  // Never claim more cached blocks than the prompt has tokens.
  if (hashes.length * blockSize > promptTokens) hashes.length = Math.floor(promptTokens / blockSize);
  return {
    api,
    inputs,
    model: typeof model === 'string' ? model : null,
    stream,
    includeUsage,
    maxTokens,
    ignoreEos,
    promptTokens: Math.max(1, promptTokens),
    blockHashes: hashes,
    promptText,
  };
}

/** A form field's whole-number value (`max_completion_tokens`); null when absent. */
function formInt(fields: Map<string, string>, name: string): number | null {
  const v = fields.get(name);
  if (v === undefined || v === '') return null;
  if (!/^\s*\d+\s*$/.test(v) || Number(v) < 1) throw new BadRequest(`${name} must be an integer ≥ 1, got ${JSON.stringify(v)}`);
  return Number(v);
}

/**
 * A /v1/audio/transcriptions request: multipart/form-data with a `file` part (audio, checked by
 * its magic bytes) and form fields, read as vLLM's TranscriptionRequest reads them (booleans in
 * pydantic's words, stream options only with stream, response_format json or text). Prompt
 * tokens: the audio's by the simulator's rule (util/media.ts, 25 a second) plus the `prompt`
 * field's text. A malformed body, or a file that is not audio, is a 400.
 */
export function parseTranscriptionRequest(raw: Buffer, contentType: string | undefined, count: TokenCounter = estimateTokens): ParsedRequest {
  const boundary = formBoundary(contentType);
  if (boundary === null) throw new BadRequest(`Content-Type must be multipart/form-data with a boundary, got ${JSON.stringify(contentType ?? '(none)')}`);
  let parts;
  try {
    parts = parseMultipart(raw, boundary);
  } catch (e) {
    if (e instanceof MultipartError) throw new BadRequest(`malformed multipart/form-data body: ${e.message}`);
    throw e;
  }
  const fields = new Map<string, string>();
  let file: Buffer | null = null;
  for (const p of parts) {
    if (p.name === 'file') {
      if (p.filename === null) throw new BadRequest("Expected 'file' to be a file-like object, not 'str'.", 422, 'BadRequestError', 422);
      file = p.bytes;
    } else fields.set(p.name, p.bytes.toString('utf8'));
  }
  if (file === null) throw new BadRequest('1 validation error for TranscriptionRequest\nfile\n  Field required [type=missing]');
  if (sniffAudio(file) === null) throw new BadRequest('Invalid or unsupported audio file: the file is not WAV, MP3, FLAC or Ogg audio');
  const model = fields.get('model') ?? null;
  const f = Object.fromEntries(fields) as Record<string, unknown>;
  const stream = boolField(f, 'stream', 'TranscriptionRequest');
  const includeUsage = boolField(f, 'stream_include_usage', 'TranscriptionRequest');
  const continuous = boolField(f, 'stream_continuous_usage_stats', 'TranscriptionRequest');
  if ((includeUsage || continuous) && !stream) throw new BadRequest('Stream options can only be defined when `stream=True`.');
  const format = fields.get('response_format') ?? 'json';
  if (format !== 'json') throw new BadRequest(`response_format ${JSON.stringify(format)}: the simulator answers json only`);
  const seconds = audioDurationS(file);
  const prompt = fields.get('prompt') ?? '';
  return {
    api: 'transcription',
    inputs: 1,
    model,
    stream,
    includeUsage,
    maxTokens: formInt(fields, 'max_completion_tokens'),
    ignoreEos: false,
    promptTokens: Math.max(1, audioTokens(seconds) + (prompt === '' ? 0 : count(prompt))),
    // Audio is not prefix-cached: each clip is its own.
    blockHashes: [],
    promptText: null,
    audioSeconds: seconds,
  };
}
