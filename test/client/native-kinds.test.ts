/**
 * The engines' native kinds (src/client/endpoints/native.ts): bodies by hand, and the stream
 * parsers on event sequences in the shapes the engines' own docs and code show (TGI's
 * StreamResponse, SGLang's /generate stream, TensorRT-LLM's ensemble over Triton's
 * generate_stream), parsed exactly — tokens, text, first-token time, usage — and the same at
 * every split into two reads (LF, CRLF, CR, a BOM first) and at random splits into many.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sglangCumulativeKind, sglangIncrementalKind, tgiKind, tritonCumulativeKind, tritonDeltaKind, parseSglangAnswer, parseTgiAnswer, parseTritonAnswer } from '../../src/client/endpoints/native.js';
import { endpointKindForPath, endpointKindNamed } from '../../src/client/endpoints/registry.js';
import type { EndpointKind } from '../../src/client/endpoints/endpoint-kind.js';
import type { StreamScan } from '../../src/client/stream-events.js';
import type { WorkItem } from '../../src/workload/types.js';

const item = (over: Partial<WorkItem> = {}): WorkItem => ({ prompt: 'hello there', messages: null, prompt_tokens: 3, max_tokens: 16, task: null, expected: null, session: null, turn: null, ...over });
const opts = { model: 'm', stream: true, ignoreEos: false, extraBody: {} };

describe('native request bodies', () => {
  it('tgi: inputs and parameters (max_new_tokens, details); --extra-body parameters merge into ours', () => {
    expect(tgiKind.buildBody(item(), opts)).toEqual({ inputs: 'hello there', parameters: { max_new_tokens: 16, details: true } });
    expect(tgiKind.buildBody(item({ max_tokens: null }), { ...opts, ignoreEos: true, extraBody: { parameters: { temperature: 0 }, truncate: 10 } })).toEqual({ inputs: 'hello there', parameters: { details: true, temperature: 0 }, truncate: 10 });
  });

  it('sglang: text, stream, sampling_params (max_new_tokens, ignore_eos)', () => {
    expect(sglangCumulativeKind.buildBody(item(), { ...opts, ignoreEos: true })).toEqual({ text: 'hello there', stream: true, sampling_params: { max_new_tokens: 16, ignore_eos: true } });
    expect(sglangIncrementalKind.buildBody(item(), { ...opts, stream: false, extraBody: { sampling_params: { temperature: 0 } } })).toEqual({ text: 'hello there', sampling_params: { max_new_tokens: 16, temperature: 0 } });
  });

  it("triton: the ensemble's text_input, max_tokens (required: 4096 when the workload gives none), stream", () => {
    expect(tritonDeltaKind.buildBody(item(), opts)).toEqual({ text_input: 'hello there', max_tokens: 16, stream: true });
    expect(tritonCumulativeKind.buildBody(item({ max_tokens: null }), { ...opts, extraBody: { end_id: 2 } })).toEqual({ text_input: 'hello there', max_tokens: 4096, stream: true, end_id: 2 });
  });

  it('names and paths: /generate_stream is tgi, /generate sglang, /v2/models/NAME[/versions/V]/generate_stream triton', () => {
    expect(endpointKindForPath('/generate_stream')).toBe(tgiKind);
    expect(endpointKindForPath('/generate')).toBe(sglangCumulativeKind);
    expect(endpointKindForPath('/v2/models/ensemble/generate_stream')).toBe(tritonDeltaKind);
    expect(endpointKindForPath('/v2/models/llama/versions/3/generate_stream')).toBe(tritonDeltaKind);
    expect(endpointKindNamed('triton-cumulative')).toBe(tritonCumulativeKind);
    expect(endpointKindNamed('sglang-incremental')).toBe(sglangIncrementalKind);
    expect(tritonDeltaKind.path).toBe('/v2/models/ensemble/generate_stream');
  });
});

// ---- event sequences in the engines' documented shapes ---------------------------------------

const tgiToken = (index: number, id: number, text: string, special = false) => ({ index, token: { id, text, logprob: -0.25, special }, generated_text: null, details: null, top_tokens: null });

/** TGI /generate_stream ending at the EOS: axum's SSE (`data:` without a space), the EOS a special token carrying generated_text and details. */
const TGI_CAPTURE =
  `data:${JSON.stringify(tgiToken(1, 89554, ' Once'))}\n\n` +
  `data:${JSON.stringify(tgiToken(2, 3714, ' upon'))}\n\n` +
  `data:${JSON.stringify(tgiToken(3, 264, ' a é中'))}\n\n` +
  `data:${JSON.stringify({ ...tgiToken(4, 2, '</s>', true), generated_text: ' Once upon a é中', details: { finish_reason: 'eos_token', generated_tokens: 4, seed: null, input_length: 7 } })}\n\n`;

/** SGLang /generate stream: cumulative text, meta_info on every event, finish_reason on the last, then [DONE]. */
const sgl = (text: string, ids: number[], finish: unknown) => ({ text, output_ids: ids, meta_info: { id: 'a1b2', finish_reason: finish, prompt_tokens: 6, completion_tokens: ids.length, cached_tokens: 0, e2e_latency: 0.1 }, index: 0 });
const SGLANG_CAPTURE =
  `data: ${JSON.stringify(sgl(' Paris', [12366], null))}\n\n` +
  `data: ${JSON.stringify(sgl(' Paris.', [12366, 13], null))}\n\n` +
  `data: ${JSON.stringify(sgl(' Paris.🙂', [12366, 13, 9], { type: 'length', length: 3 }))}\n\n` +
  'data: [DONE]\n\n';
/** The same with --incremental-streaming-output: each text is the new piece. */
const SGLANG_INCREMENTAL_CAPTURE = SGLANG_CAPTURE.replace('"text":" Paris."', '"text":"."').replace('"text":" Paris.🙂"', '"text":"🙂"');

/** TensorRT-LLM's ensemble over Triton's generate_stream: one delta per event, nothing after the last. */
const trt = (text: string) => ({ model_name: 'ensemble', model_version: '1', sequence_end: false, sequence_id: 0, sequence_start: false, text_output: text });
const TRITON_CAPTURE = ['Machine', ' learning', ' is', ' a'].map((t) => `data: ${JSON.stringify(trt(t))}\n\n`).join('');
/** The BLS model with accumulate_tokens: each text_output is the text so far. */
const TRITON_CUMULATIVE_CAPTURE = ['Machine', 'Machine learning', 'Machine learning is', 'Machine learning is a'].map((t) => `data: ${JSON.stringify(trt(t))}\n\n`).join('');

const enc = new TextEncoder();

/** Feeds `bytes` in reads cut at `cuts`; read k arrives at time 10·k. */
function scan(kind: EndpointKind, bytes: Uint8Array, cuts: number[]): StreamScan {
  const s = kind.newScanner!({ keepText: true });
  let at = 0;
  let t = 0;
  for (const c of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, c), 10 * t++);
    at = c;
  }
  s.end(10 * t);
  return s;
}

/** Cuts at every event's end: event k arrives at time 10·k. */
const eventCuts = (capture: string): number[] => {
  const cuts: number[] = [];
  let i = capture.indexOf('\n\n');
  while (i >= 0 && i + 2 < capture.length) {
    cuts.push(enc.encode(capture.slice(0, i + 2)).length);
    i = capture.indexOf('\n\n', i + 2);
  }
  return cuts;
};

const summary = (s: StreamScan) => ({ events: s.contentEvents, usage: s.usage, finish: s.finishReason, done: s.sawDone, after: s.eventsAfterDone, error: s.errorMessage, malformed: s.malformed, text: s.text });

describe('native stream parsers, parsed exactly', () => {
  it('tgi: a token per event, the special EOS is no content; usage and finish from details', () => {
    const s = scan(tgiKind, enc.encode(TGI_CAPTURE), eventCuts(TGI_CAPTURE));
    expect(summary(s)).toEqual({ events: 3, usage: { prompt_tokens: 7, completion_tokens: 4 }, finish: 'stop', done: true, after: 0, error: null, malformed: null, text: ' Once upon a é中' });
    expect([...s.contentTimes()]).toEqual([0, 10, 20]);
    expect(s.firstAnswerMs).toBe(0);
  });

  it('sglang: the new part of each cumulative text, meta_info usage, length; [DONE] is not an event after the end', () => {
    const s = scan(sglangCumulativeKind, enc.encode(SGLANG_CAPTURE), eventCuts(SGLANG_CAPTURE));
    expect(summary(s)).toEqual({ events: 3, usage: { prompt_tokens: 6, completion_tokens: 3 }, finish: 'length', done: true, after: 0, error: null, malformed: null, text: ' Paris.🙂' });
    expect([...s.contentTimes()]).toEqual([0, 10, 20]);
    expect(summary(scan(sglangIncrementalKind, enc.encode(SGLANG_INCREMENTAL_CAPTURE), []))).toEqual({ ...summary(s), text: ' Paris.🙂' });
  });

  it('triton: deltas, or the text so far (triton-cumulative); the end of the response is the end; no usage', () => {
    const s = scan(tritonDeltaKind, enc.encode(TRITON_CAPTURE), eventCuts(TRITON_CAPTURE));
    expect(summary(s)).toEqual({ events: 4, usage: null, finish: null, done: true, after: 0, error: null, malformed: null, text: 'Machine learning is a' });
    expect([...s.contentTimes()]).toEqual([0, 10, 20, 30]);
    const c = scan(tritonCumulativeKind, enc.encode(TRITON_CUMULATIVE_CAPTURE), eventCuts(TRITON_CUMULATIVE_CAPTURE));
    expect(summary(c)).toEqual(summary(s));
    expect([...c.contentTimes()]).toEqual([0, 10, 20, 30]);
    // Read as deltas, a cumulative stream's text repeats itself: the kind must be named.
    expect(scan(tritonDeltaKind, enc.encode(TRITON_CUMULATIVE_CAPTURE), []).text).toBe('MachineMachine learningMachine learning isMachine learning is a');
  });

  it('error events in each format; an SGLang abort is a failure; a payload that is not JSON', () => {
    expect(scan(tgiKind, enc.encode(`data:${JSON.stringify(tgiToken(1, 5, 'a'))}\n\ndata:{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}\n\n`), []).errorMessage).toBe('Request failed during generation: Server error: CUDA out of memory');
    expect(scan(sglangCumulativeKind, enc.encode('data: {"error":{"message":"The input is too long"}}\n\ndata: [DONE]\n\n'), []).errorMessage).toBe('The input is too long');
    expect(scan(sglangCumulativeKind, enc.encode(`data: ${JSON.stringify(sgl('x', [1], { type: 'abort', message: 'Abort before prefill', status_code: 500 }))}\n\ndata: [DONE]\n\n`), []).errorMessage).toBe('Abort before prefill');
    expect(scan(tritonDeltaKind, enc.encode('data: {"error":"in ensemble \'ensemble\', Encountered error for requestId 1"}\n\n'), []).errorMessage).toBe("in ensemble 'ensemble', Encountered error for requestId 1");
    expect(scan(tritonDeltaKind, enc.encode('data: {"text_output":\n\n'), []).malformed).toBe('{"text_output":');
  });

  it('a stream cut before its end is not done (tgi, sglang)', () => {
    const cut = (c: string) => c.slice(0, c.lastIndexOf('data:'));
    expect(scan(tgiKind, enc.encode(cut(TGI_CAPTURE)), []).sawDone).toBe(false);
    const s = scan(sglangCumulativeKind, enc.encode(cut(cut(SGLANG_CAPTURE))), []);
    expect([s.sawDone, s.finishReason]).toEqual([false, null]);
  });

  for (const [name, kind, capture] of [
    ['tgi', tgiKind, TGI_CAPTURE],
    ['sglang', sglangCumulativeKind, SGLANG_CAPTURE],
    ['sglang-incremental', sglangIncrementalKind, SGLANG_INCREMENTAL_CAPTURE],
    ['triton', tritonDeltaKind, TRITON_CAPTURE],
    ['triton-cumulative', tritonCumulativeKind, TRITON_CUMULATIVE_CAPTURE],
  ] as const) {
    for (const [eol, text] of [
      ['LF', capture],
      ['CRLF', capture.replace(/\n/g, '\r\n')],
      ['CR', capture.replace(/\n/g, '\r')],
    ] as const) {
      it(`${name} (${eol}, BOM first): the same at every split into two reads`, () => {
        const bytes = enc.encode('\ufeff' + text);
        const whole = summary(scan(kind, bytes, []));
        expect(whole.done).toBe(true);
        expect(whole.events).toBeGreaterThan(2);
        for (let i = 0; i <= bytes.length; i++) expect(summary(scan(kind, bytes, [i]))).toEqual(whole);
      });
    }
    it(`${name}: the same at any splits into many reads`, () => {
      const bytes = enc.encode(capture);
      const whole = summary(scan(kind, bytes, []));
      fc.assert(
        fc.property(fc.uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 40 }), (cuts) => {
          expect(summary(scan(kind, bytes, [...cuts].sort((a, b) => a - b)))).toEqual(whole);
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe('native whole answers', () => {
  it("TGI's /generate (an object, or the Inference API's list), SGLang's and Triton's", () => {
    const tgi = { generated_text: 'Paris.', details: { finish_reason: 'length', generated_tokens: 2, seed: null, input_length: 5, prefill: [], tokens: [] } };
    expect(parseTgiAnswer(tgi)).toEqual({ text: 'Paris.', usage: { prompt_tokens: 5, completion_tokens: 2 }, finishReason: 'length' });
    expect(parseTgiAnswer([{ generated_text: 'x' }])).toEqual({ text: 'x', usage: null, finishReason: null });
    expect(parseSglangAnswer({ text: 'Paris.', meta_info: { finish_reason: { type: 'stop', matched: 2 }, prompt_tokens: 6, completion_tokens: 2 } })).toEqual({ text: 'Paris.', usage: { prompt_tokens: 6, completion_tokens: 2 }, finishReason: 'stop' });
    expect(parseTritonAnswer({ model_name: 'ensemble', model_version: '1', text_output: 'Machine learning' })).toEqual({ text: 'Machine learning', usage: null, finishReason: null });
    for (const p of [parseTgiAnswer, parseSglangAnswer, parseTritonAnswer]) expect(p({ choices: [] })).toBeNull();
  });
});
