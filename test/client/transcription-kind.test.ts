/**
 * The transcription kind (src/client/endpoints/transcription.ts): the multipart/form-data body to
 * the byte, its boundary, the form fields vLLM's TranscriptionRequest reads; vLLM's streamed
 * transcription.chunk sequence (speech_to_text.py) parsed exactly and the same at every split
 * into two reads (LF, CRLF, CR, a BOM first) and at random splits into many; the whole answer;
 * and the simulator's multipart reader on the client's bytes and on malformed ones.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { multipartBody, multipartBoundary, parseTranscription, transcriptionKind, type FormField } from '../../src/client/endpoints/transcription.js';
import { endpointKindForPath, endpointKindNamed } from '../../src/client/endpoints/registry.js';
import type { StreamScan } from '../../src/client/stream-events.js';
import type { WorkItem } from '../../src/workload/types.js';
import { synthWav } from '../../src/workload/media/audio.js';
import { audioDurationS } from '../../src/util/media.js';
import { formBoundary, parseMultipart } from '../../src/sim/http/multipart.js';
import { BadRequest, parseTranscriptionRequest } from '../../src/sim/http/request-parse.js';

/** A 1/4 s WAV of the random-audio dataset (8,044 bytes). */
const wav = synthWav(250, 7);
const clip = { type: 'audio' as const, format: 'wav' as const, data: wav.toString('base64'), bytes: wav.length, duration_s: audioDurationS(wav) };
const item = (over: Partial<WorkItem> = {}): WorkItem => ({ prompt: 'ignored text', messages: null, prompt_tokens: 3, max_tokens: 16, task: null, expected: null, session: null, turn: null, media: [clip], ...over });
const opts = { model: 'whisper', stream: true, ignoreEos: true, extraBody: {} };

describe('the multipart/form-data body', () => {
  it('is exactly RFC 7578: file part with filename and content type, then one part per field, then the close', () => {
    const fields: FormField[] = [
      { name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: Uint8Array.of(0x52, 0x49, 0x46, 0x46, 0x00, 0xff) },
      { name: 'model', value: 'whisper' },
      { name: 'language', value: 'é"x' },
    ];
    const body = multipartBody(fields, 'B0UND');
    const expected = Buffer.concat([
      Buffer.from('--B0UND\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n', 'latin1'),
      Buffer.from([0x52, 0x49, 0x46, 0x46, 0x00, 0xff]),
      Buffer.from('\r\n--B0UND\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--B0UND\r\nContent-Disposition: form-data; name="language"\r\n\r\n', 'latin1'),
      Buffer.from('é"x', 'utf8'),
      Buffer.from('\r\n--B0UND--\r\n', 'latin1'),
    ]);
    expect(body.equals(expected)).toBe(true);
    // A quote or line break in a name is percent-encoded, never breaking the header.
    expect(multipartBody([{ name: 'a"b\r\n', value: 'v' }], 'X').toString('latin1')).toBe('--X\r\nContent-Disposition: form-data; name="a%22b%0D%0A"\r\n\r\nv\r\n--X--\r\n');
  });

  it('the request: file, model, response_format, temperature, stream, stream_include_usage, max_completion_tokens; --extra-body fields win, null drops one', () => {
    const raw = transcriptionKind.buildRawBody!(item(), { ...opts, extraBody: { language: 'en', temperature: 0.2, vllm_xargs: { a: 1 }, stream_include_usage: null } }, 3);
    const boundary = formBoundary(raw.contentType)!;
    expect(raw.contentType).toBe(`multipart/form-data; boundary=${boundary}`);
    const parts = parseMultipart(raw.bytes, boundary);
    expect(parts.map((p) => [p.name, p.filename, p.contentType, p.name === 'file' ? p.bytes.length : p.bytes.toString('utf8')])).toEqual([
      ['file', 'audio.wav', 'audio/wav', wav.length],
      ['model', null, null, 'whisper'],
      ['response_format', null, null, 'json'],
      ['temperature', null, null, '0.2'],
      ['stream', null, null, 'true'],
      ['max_completion_tokens', null, null, '16'],
      ['language', null, null, 'en'],
      ['vllm_xargs', null, null, '{"a":1}'],
    ]);
    expect(parts[0]!.bytes.equals(wav)).toBe(true);
    const unary = parseMultipart(transcriptionKind.buildRawBody!(item({ max_tokens: null }), { ...opts, stream: false }, 0).bytes, formBoundary(transcriptionKind.buildRawBody!(item({ max_tokens: null }), { ...opts, stream: false }, 0).contentType)!);
    expect(unary.map((p) => p.name)).toEqual(['file', 'model', 'response_format', 'temperature', 'stream']);
    expect(transcriptionKind.buildBody(item(), opts)).toEqual({ file: `audio.wav (${wav.length} bytes, audio/wav)`, model: 'whisper', response_format: 'json', temperature: '0.0', stream: 'true', stream_include_usage: 'true', max_completion_tokens: '16' });
  });

  it('the boundary: the same for the same request in every run, another for the next request, never inside the content', () => {
    const a = transcriptionKind.buildRawBody!(item(), opts, 5);
    expect(transcriptionKind.buildRawBody!(item(), opts, 5).bytes.equals(a.bytes)).toBe(true);
    expect(transcriptionKind.buildRawBody!(item(), opts, 6).contentType).not.toBe(a.contentType);
    const b = multipartBoundary(1, [{ name: 'model', value: 'm' }]);
    // Content that holds the boundary it would get: the boundary grows until it is not inside.
    const grown = multipartBoundary(1, [{ name: 'model', value: `x${b}y` }]);
    expect(grown.startsWith(b) && grown.length > b.length).toBe(true);
    expect(`x${b}y`.includes(grown)).toBe(false);
    expect(grown.length).toBeLessThanOrEqual(70);
  });

  it('an item without audio cannot be sent (prepare-run refuses such a workload before the load)', () => {
    expect(() => transcriptionKind.buildRawBody!(item({ media: undefined }), opts, 0)).toThrow('a transcription request needs an audio clip');
  });

  it('names and paths: /v1/audio/transcriptions, --endpoint-type transcription, vLLM --backend openai-audio', () => {
    expect(endpointKindForPath('/v1/audio/transcriptions')).toBe(transcriptionKind);
    expect(endpointKindNamed('transcription')).toBe(transcriptionKind);
    expect(endpointKindNamed('openai-audio')).toBe(transcriptionKind);
  });
});

// ---- vLLM's streamed transcription (speech_to_text.py, _speech_to_text_stream_generator) ----

const meta = { id: 'trsc-9f2c', object: 'transcription.chunk', created: 1733140000, model: 'openai/whisper-large-v3' };
/** model_dump_json(exclude_unset=True): a delta-only choice until the last, which has finish_reason and stop_reason; then the usage chunk (choices []) and [DONE]. */
const VLLM_TRANSCRIPTION =
  `data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' The' } }] })}\n\n` +
  `data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' quick' } }] })}\n\n` +
  `data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: '' } }] })}\n\n` +
  `data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' brown é中' } }] })}\n\n` +
  `data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' fox.' }, finish_reason: 'stop', stop_reason: null }] })}\n\n` +
  `data: ${JSON.stringify({ ...meta, choices: [], usage: { prompt_tokens: 1504, total_tokens: 1511, completion_tokens: 7 } })}\n\n` +
  'data: [DONE]\n\n';

const enc = new TextEncoder();

function scan(bytes: Uint8Array, cuts: number[]): StreamScan {
  const s = transcriptionKind.newScanner!({ keepText: true });
  let at = 0;
  let t = 0;
  for (const c of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, c), 10 * t++);
    at = c;
  }
  s.end(10 * t);
  return s;
}
const eventCuts = (capture: string): number[] => {
  const cuts: number[] = [];
  for (let i = capture.indexOf('\n\n'); i >= 0 && i + 2 < capture.length; i = capture.indexOf('\n\n', i + 2)) cuts.push(enc.encode(capture.slice(0, i + 2)).length);
  return cuts;
};
const summary = (s: StreamScan) => ({ events: s.contentEvents, usage: s.usage, finish: s.finishReason, done: s.sawDone, after: s.eventsAfterDone, error: s.errorMessage, malformed: s.malformed, text: s.text, times: [...s.contentTimes()] });

describe("vLLM's transcription stream, parsed exactly", () => {
  it('one content time per non-empty delta (the empty one is not a token), usage from the last chunk, finish stop, [DONE]', () => {
    const s = scan(enc.encode(VLLM_TRANSCRIPTION), eventCuts(VLLM_TRANSCRIPTION));
    expect(summary(s)).toEqual({ events: 4, usage: { prompt_tokens: 1504, completion_tokens: 7 }, finish: 'stop', done: true, after: 0, error: null, malformed: null, text: ' The quick brown é中 fox.', times: [0, 10, 30, 40] });
  });

  it("an error event inside the 200 stream (vLLM's create_streaming_error_response) is the stream's error", () => {
    const s = scan(enc.encode(`data: ${JSON.stringify({ ...meta, choices: [{ delta: { content: ' The' } }] })}\n\ndata: {"error":{"message":"Maximum clip duration exceeded","type":"BadRequestError","param":null,"code":400}}\n\ndata: [DONE]\n\n`), []);
    expect(s.errorMessage).toBe('Maximum clip duration exceeded');
  });

  for (const [eol, text] of [
    ['LF', VLLM_TRANSCRIPTION],
    ['CRLF', VLLM_TRANSCRIPTION.replace(/\n/g, '\r\n')],
    ['CR', VLLM_TRANSCRIPTION.replace(/\n/g, '\r')],
  ] as const) {
    it(`${eol}, BOM first: the same at every split into two reads`, () => {
      const bytes = enc.encode('\ufeff' + text);
      const whole = summary(scan(bytes, []));
      expect([whole.events, whole.done, whole.text]).toEqual([4, true, ' The quick brown é中 fox.']);
      for (let i = 0; i <= bytes.length; i++) {
        const s = summary(scan(bytes, [i]));
        // Times depend on the cut (an event completed by the second read arrives at 10): the rest does not.
        expect({ ...s, times: s.times.length }).toEqual({ ...whole, times: 4 });
        expect(s.times.every((t) => t === 0 || t === 10)).toBe(true);
      }
    });
  }

  it('the same at any splits into many reads', () => {
    const bytes = enc.encode(VLLM_TRANSCRIPTION);
    const whole = summary(scan(bytes, []));
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 40 }), (cuts) => {
        const s = summary(scan(bytes, [...cuts].sort((a, b) => a - b)));
        expect({ ...s, times: s.times.length }).toEqual({ ...whole, times: 4 });
      }),
      { numRuns: 200 },
    );
  });
});

describe('the whole answer', () => {
  it("vLLM's {text, usage: duration} has no token counts; OpenAI's token usage is read", () => {
    expect(parseTranscription({ text: ' Hello, world.', usage: { type: 'duration', seconds: 3 } })).toEqual({ text: ' Hello, world.', usage: null, finishReason: null });
    expect(parseTranscription({ text: 'hi', usage: { type: 'tokens', input_tokens: 14, output_tokens: 2, total_tokens: 16 } })).toEqual({ text: 'hi', usage: { prompt_tokens: 14, completion_tokens: 2 }, finishReason: null });
    for (const bad of [null, [], { choices: [] }, { text: 3 }]) expect(parseTranscription(bad)).toBeNull();
  });
});

describe("the simulator's multipart reader", () => {
  const ct = (b: string) => `multipart/form-data; boundary=${b}`;

  it("reads the client's request: the audio's tokens by the rule (25 a second), stream and usage flags, max_completion_tokens", () => {
    const raw = transcriptionKind.buildRawBody!(item(), opts, 0);
    const p = parseTranscriptionRequest(raw.bytes, raw.contentType);
    expect([p.api, p.model, p.stream, p.includeUsage, p.maxTokens, p.promptTokens, p.audioSeconds]).toEqual(['transcription', 'whisper', true, true, 16, 7, 0.25]);
    const unary = transcriptionKind.buildRawBody!(item({ max_tokens: null }), { ...opts, stream: false, extraBody: { prompt: 'one two three' } }, 1);
    const u = parseTranscriptionRequest(unary.bytes, unary.contentType);
    expect([u.stream, u.includeUsage, u.maxTokens, u.promptTokens]).toEqual([false, false, null, 7 + 3]);
  });

  it('a preamble and an epilogue are skipped; a quoted boundary is read', () => {
    const body = Buffer.from('preamble\r\n--q1\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--q1--\r\nepilogue', 'latin1');
    expect(parseMultipart(body, formBoundary('multipart/form-data; boundary="q1"')!).map((p) => [p.name, p.bytes.toString()])).toEqual([['model', 'm']]);
  });

  it('malformed bodies and non-audio files are 400s in one line', () => {
    const raw = transcriptionKind.buildRawBody!(item(), opts, 0);
    const b = formBoundary(raw.contentType)!;
    const bad = (bytes: Buffer, type: string | undefined = raw.contentType): string => {
      try {
        parseTranscriptionRequest(bytes, type);
        return 'accepted';
      } catch (e) {
        expect(e).toBeInstanceOf(BadRequest);
        return `${(e as BadRequest).status} ${(e as BadRequest).message}`;
      }
    };
    expect(bad(raw.bytes, 'application/json')).toBe('400 Content-Type must be multipart/form-data with a boundary, got "application/json"');
    expect(bad(raw.bytes, 'multipart/form-data')).toMatch(/^400 Content-Type must be multipart\/form-data with a boundary/);
    expect(bad(raw.bytes.subarray(0, raw.bytes.length - 12))).toBe('400 malformed multipart/form-data body: the body ends inside a part (no closing boundary)');
    expect(bad(Buffer.from('no parts here'))).toBe('400 malformed multipart/form-data body: the body holds no part delimited by the boundary of its Content-Type');
    expect(bad(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="model"\r\nm\r\n--${b}--\r\n`))).toMatch(/^400 malformed multipart\/form-data body: /);
    expect(bad(Buffer.from(`--${b}\r\nContent-Type: text/plain\r\n\r\nm\r\n--${b}--\r\n`))).toBe('400 malformed multipart/form-data body: a part has no Content-Disposition: form-data header');
    expect(bad(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--${b}--\r\n`))).toMatch(/^400 1 validation error for TranscriptionRequest\nfile\n {2}Field required/);
    expect(bad(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"\r\n\r\nRIFF\r\n--${b}--\r\n`))).toBe("422 Expected 'file' to be a file-like object, not 'str'.");
    expect(bad(multipartBody([{ name: 'file', filename: 'x.png', contentType: 'image/png', bytes: Buffer.from('\x89PNG\r\n\x1a\n0000', 'latin1') }], 'Z'), ct('Z'))).toBe('400 Invalid or unsupported audio file: the file is not WAV, MP3, FLAC or Ogg audio');
    expect(bad(multipartBody([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: wav }, { name: 'stream_include_usage', value: 'true' }], 'Z'), ct('Z'))).toBe('400 Stream options can only be defined when `stream=True`.');
    expect(bad(multipartBody([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: wav }, { name: 'stream', value: 'maybe' }], 'Z'), ct('Z'))).toMatch(/^400 1 validation error for TranscriptionRequest\nstream\n/);
  });
});
