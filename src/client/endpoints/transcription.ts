/**
 * /v1/audio/transcriptions (OpenAI's speech-to-text API, vLLM's Whisper/Voxtral/Qwen-ASR
 * serving): the request is `multipart/form-data`, not JSON — one `file` part with the audio bytes
 * (filename and content type), then form fields: `model`, `response_format=json`, `temperature`,
 * `stream`, `stream_include_usage` when streaming (vLLM flattens stream_options into a form
 * field), `max_completion_tokens` when the workload bounds the output, and every --extra-body
 * field (`language`, `prompt`, `vllm_xargs` …) as a form field of its own.
 *
 * The answer: without streaming one JSON body `{"text": …, "usage": {"type": "duration",
 * "seconds": n}}` (no token counts: output tokens come from --tokenizer or the shared estimate,
 * docs/endpoints.md §Transcriptions); streamed, SSE `data: {"object":"transcription.chunk",
 * "choices":[{"delta":{"content":…}}]}` events, the last with `finish_reason`, a `"choices":[]`
 * chunk with `usage` when `stream_include_usage` was sent, then `data: [DONE]` — the chat
 * stream's shape, so the byte-level OpenAI scanner reads it (stream-scanner.ts).
 *
 * Wire format: vllm/entrypoints/openai/speech_to_text/protocol.py (TranscriptionRequest,
 * TranscriptionStreamResponse, TranscriptionResponse), speech_to_text.py
 * (_speech_to_text_stream_generator), vllm/benchmarks/lib/endpoint_request_func.py
 * (async_request_openai_audio, the `openai-audio` backend).
 */
import { fnv1a } from '../../util/rng.js';
import type { AudioFormat, MediaItem } from '../../util/media.js';
import type { WorkItem } from '../../workload/types.js';

type AudioClip = Extract<MediaItem, { type: 'audio' }>;
import { OpenAIStreamScanner } from '../stream-scanner.js';
import { bearerAuth, type BodyOptions, type EndpointKind, type RawBody, type UnaryAnswer } from './endpoint-kind.js';

/** The content type of each audio format's file part. */
const AUDIO_MIME: Readonly<Record<AudioFormat, string>> = { wav: 'audio/wav', mp3: 'audio/mpeg', flac: 'audio/flac', ogg: 'audio/ogg' };

/** One form field: its name, and a string value or a file. */
export type FormField = { name: string; value: string } | { name: string; filename: string; contentType: string; bytes: Uint8Array };

/** A form field's value for a JSON value of --extra-body: strings as they are, objects (vllm_xargs) as JSON. */
export function formValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A field name or filename inside a Content-Disposition quoted string: `"`, CR and LF percent-encoded, as browsers do (WHATWG multipart/form-data). */
const quoted = (s: string): string => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

/**
 * A multipart/form-data body (RFC 7578): each part `--boundary CRLF headers CRLF CRLF content
 * CRLF`, then `--boundary--` CRLF. The boundary must not occur in any part: the caller picks it
 * (multipartBoundary).
 */
export function multipartBody(fields: readonly FormField[], boundary: string): Buffer {
  const parts: Buffer[] = [];
  for (const f of fields) {
    if ('bytes' in f) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(f.name)}"; filename="${quoted(f.filename)}"\r\nContent-Type: ${f.contentType}\r\n\r\n`, 'utf8'));
      parts.push(Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength));
      parts.push(Buffer.from('\r\n', 'latin1'));
    } else parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(f.name)}"\r\n\r\n${f.value}\r\n`, 'utf8'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * A boundary for one request, the same for the same request in every run: the request's number
 * and a hash of the audio's first bytes, made longer until no part holds it (RFC 2046 §5.1.1:
 * at most 70 characters, ours are 30–46).
 */
export function multipartBoundary(seq: number, fields: readonly FormField[]): string {
  const file = fields.find((f): f is Extract<FormField, { bytes: Uint8Array }> => 'bytes' in f);
  const head = file ? Buffer.from(file.bytes.buffer, file.bytes.byteOffset, Math.min(4096, file.bytes.byteLength)).toString('latin1') : '';
  let boundary = `infermeter-${seq.toString(16).padStart(8, '0')}${fnv1a(head).toString(16).padStart(8, '0')}`;
  for (let salt = 0; fields.some((f) => ('bytes' in f ? Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).includes(boundary, 0, 'latin1') : f.value.includes(boundary))); salt++) {
    boundary += (fnv1a(`${boundary}:${salt}`) >>> 0).toString(16).padStart(8, '0').slice(0, 4);
  }
  return boundary;
}

/** `{"text": …}` (json, and verbose_json's text); the `usage` vLLM sends is the audio's seconds, not tokens. */
export function parseTranscription(json: unknown): UnaryAnswer | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const o = json as Record<string, unknown>;
  if (typeof o.text !== 'string') return null;
  const u = o.usage;
  // OpenAI's gpt-4o-transcribe reports tokens (`{"type":"tokens","input_tokens","output_tokens"}`): read them when there.
  if (typeof u === 'object' && u !== null && (u as Record<string, unknown>).type === 'tokens') {
    const t = u as Record<string, unknown>;
    return { text: o.text, usage: { prompt_tokens: typeof t.input_tokens === 'number' ? t.input_tokens : null, completion_tokens: typeof t.output_tokens === 'number' ? t.output_tokens : null }, finishReason: null };
  }
  return { text: o.text, usage: null, finishReason: null };
}

/** File names by format, for the file part (servers pick the decoder by content and name). */
const FILE_NAME: Readonly<Record<AudioFormat, string>> = { wav: 'audio.wav', mp3: 'audio.mp3', flac: 'audio.flac', ogg: 'audio.ogg' };

/** The item's audio clip and the form fields after the file, in the order sent. */
function formFields(item: WorkItem, opts: BodyOptions): { clip: AudioClip; values: Map<string, string> } {
  const clip = item.media?.find((m): m is AudioClip => m.type === 'audio');
  if (clip === undefined) throw new Error('a transcription request needs an audio clip (--dataset-name random-audio or audio)');
  const values = new Map<string, string>([
    ['model', opts.model],
    ['response_format', 'json'],
    ['temperature', '0.0'],
    ['stream', opts.stream ? 'true' : 'false'],
  ]);
  if (opts.stream) values.set('stream_include_usage', 'true');
  if (item.max_tokens !== null) values.set('max_completion_tokens', String(item.max_tokens));
  // The user's fields win, as in every JSON kind; a field set to null is left out.
  for (const [k, v] of Object.entries(opts.extraBody)) {
    if (v === null) values.delete(k);
    else values.set(k, formValue(v));
  }
  return { clip, values };
}

export const transcriptionKind: EndpointKind = {
  name: 'transcription',
  path: '/v1/audio/transcriptions',
  generates: true,
  input: 'audio',
  // vLLM's transcription request has no ignore_eos: the length is the model's.
  sendsIgnoreEos: false,
  media: ['audio'],
  authHeaders: bearerAuth,
  // The form fields as an object (the file described, not its bytes): what `describe` and tests read; the request is buildRawBody's.
  buildBody: (item, opts) => {
    const { clip, values } = formFields(item, opts);
    return { file: `${FILE_NAME[clip.format]} (${clip.bytes} bytes, ${AUDIO_MIME[clip.format]})`, ...Object.fromEntries(values) };
  },
  buildRawBody(item, opts, seq): RawBody {
    const { clip, values } = formFields(item, opts);
    const fields: FormField[] = [{ name: 'file', filename: FILE_NAME[clip.format], contentType: AUDIO_MIME[clip.format], bytes: Buffer.from(clip.data, 'base64') }];
    for (const [name, value] of values) fields.push({ name, value });
    const boundary = multipartBoundary(seq, fields);
    return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: multipartBody(fields, boundary) };
  },
  streamEnd: 'finish_reason or [DONE]',
  newScanner: (o) => new OpenAIStreamScanner(o),
  parseUnary: parseTranscription,
};
