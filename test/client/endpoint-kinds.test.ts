/**
 * Endpoint kinds (src/client/endpoints/): request bodies computed by hand, and the stream and
 * body parsers on hand-made wire captures in the engines' own formats (vLLM's Responses and
 * Anthropic servers, Anthropic's API), fed at every split into reads.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chatKind, completionsKind } from '../../src/client/endpoints/openai.js';
import { embeddingsKind, parseEmbeddings } from '../../src/client/endpoints/embeddings.js';
import { parseResponseObject, responsesKind } from '../../src/client/endpoints/responses.js';
import { anthropicKind, parseMessage } from '../../src/client/endpoints/anthropic.js';
import { endpointKindForPath, endpointKindNamed, resolveEndpointKind } from '../../src/client/endpoints/registry.js';
import type { EndpointKind } from '../../src/client/endpoints/endpoint-kind.js';
import type { StreamScan } from '../../src/client/stream-events.js';
import type { WorkItem } from '../../src/workload/types.js';
import { UserError } from '../../src/errors/user-error.js';

const item = (over: Partial<WorkItem> = {}): WorkItem => ({ prompt: 'hello there', messages: null, prompt_tokens: 3, max_tokens: 16, task: null, expected: null, session: null, turn: null, ...over });
const opts = { model: 'm', stream: true, ignoreEos: false, extraBody: {} };

describe('request bodies', () => {
  it('completions and chat as vLLM bench serve sends them', () => {
    expect(completionsKind.buildBody(item(), opts)).toEqual({ model: 'm', prompt: 'hello there', max_tokens: 16, stream: true, stream_options: { include_usage: true } });
    expect(chatKind.buildBody(item(), { ...opts, stream: false, ignoreEos: true })).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 16, ignore_eos: true });
  });

  it('embeddings: one input as a string, a batch as an array, no generation fields; extra_body wins', () => {
    expect(embeddingsKind.buildBody(item(), { ...opts, ignoreEos: true })).toEqual({ model: 'm', input: 'hello there' });
    expect(embeddingsKind.buildBody(item({ inputs: ['a', 'b', 'c'] }), { ...opts, extraBody: { truncate_prompt_tokens: -1, model: 'x' } })).toEqual({ model: 'x', input: ['a', 'b', 'c'], truncate_prompt_tokens: -1 });
    expect(embeddingsKind.newScanner).toBeUndefined();
  });

  it('responses: input, max_output_tokens, nothing stored', () => {
    expect(responsesKind.buildBody(item(), opts)).toEqual({ model: 'm', input: 'hello there', max_output_tokens: 16, stream: true, store: false });
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'hi' },
    ];
    expect(responsesKind.buildBody(item({ messages, max_tokens: null }), { ...opts, stream: false })).toEqual({ model: 'm', input: messages, store: false });
  });

  it('anthropic: system to the top level, max_tokens always, the key in x-api-key with anthropic-version', () => {
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'hi' },
    ];
    expect(anthropicKind.buildBody(item({ messages }), opts)).toEqual({ model: 'm', system: 'be brief', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, stream: true });
    expect(anthropicKind.buildBody(item({ max_tokens: null }), { ...opts, stream: false })).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 4096 });
    expect(anthropicKind.authHeaders('sk-ant-1')).toEqual({ 'x-api-key': 'sk-ant-1' });
    expect(anthropicKind.headers).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(chatKind.authHeaders('k')).toEqual({ authorization: 'Bearer k' });
  });
});

describe('the kind of a name or a path', () => {
  it('paths name their kind, the longest path first; unknown paths are completions', () => {
    expect(endpointKindForPath('/v1/chat/completions').name).toBe('chat');
    expect(endpointKindForPath('/v1/completions').name).toBe('completions');
    expect(endpointKindForPath('/openai/v1/embeddings/').name).toBe('embeddings');
    expect(endpointKindForPath('/v1/responses').name).toBe('responses');
    expect(endpointKindForPath('/v1/messages').name).toBe('anthropic');
    expect(endpointKindForPath('/generate').name).toBe('sglang');
    expect(endpointKindForPath('/v1/generate-something').name).toBe('completions');
  });

  it("our names and vLLM's --backend names; an unknown one is one UserError line", () => {
    expect(endpointKindNamed('openai-chat')).toBe(chatKind);
    expect(endpointKindNamed('openai-embeddings')).toBe(embeddingsKind);
    expect(resolveEndpointKind('anthropic', '/v1/completions')).toBe(anthropicKind);
    expect(resolveEndpointKind(null, '/v1/messages')).toBe(anthropicKind);
    expect(() => endpointKindNamed('colbert')).toThrow(UserError);
    expect(() => endpointKindNamed('colbert')).toThrow(/^--endpoint-type colbert: unknown endpoint kind; use one of completions, chat, embeddings, responses, anthropic/);
  });
});

// ---- wire captures ---------------------------------------------------------------------------

const ev = (event: string, data: object): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** vLLM's Responses stream for a reasoning model: a reasoning item, then the message, then response.completed. */
const RESPONSES_CAPTURE =
  ev('response.created', { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [], usage: null } }) +
  ev('response.in_progress', { type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_1', object: 'response', status: 'in_progress' } }) +
  ev('response.output_item.added', { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [], content: [] } }) +
  ev('response.reasoning_text.delta', { type: 'response.reasoning_text.delta', sequence_number: 3, item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'Think ' }) +
  ev('response.reasoning_text.delta', { type: 'response.reasoning_text.delta', sequence_number: 4, item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'é中. ' }) +
  ev('response.reasoning_text.done', { type: 'response.reasoning_text.done', sequence_number: 5, item_id: 'rs_1', output_index: 0, content_index: 0, text: 'Think é中. ' }) +
  ev('response.output_item.added', { type: 'response.output_item.added', sequence_number: 6, output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }) +
  ev('response.content_part.added', { type: 'response.content_part.added', sequence_number: 7, item_id: 'msg_1', output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } }) +
  ev('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 8, item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hello', logprobs: [] }) +
  ': keep-alive\n\n' +
  ev('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 9, item_id: 'msg_1', output_index: 1, content_index: 0, delta: '', logprobs: [] }) +
  ev('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 10, item_id: 'msg_1', output_index: 1, content_index: 0, delta: ' world🙂', logprobs: [] }) +
  ev('response.output_text.done', { type: 'response.output_text.done', sequence_number: 11, item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Hello world🙂' }) +
  ev('response.completed', {
    type: 'response.completed',
    sequence_number: 12,
    response: { id: 'resp_1', object: 'response', status: 'completed', usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 16 } },
  });

/** Anthropic's own Messages stream (usage inside message_start, a thinking block, ping). */
const ANTHROPIC_CAPTURE =
  ev('message_start', { type: 'message_start', message: { id: 'msg_01', type: 'message', role: 'assistant', content: [], model: 'claude', stop_reason: null, usage: { input_tokens: 25, output_tokens: 1 } } }) +
  ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'abc' } }) +
  ev('content_block_stop', { type: 'content_block_stop', index: 0 }) +
  ev('ping', { type: 'ping' }) +
  ev('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: ' there' } }) +
  ev('content_block_stop', { type: 'content_block_stop', index: 1 }) +
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }) +
  ev('message_stop', { type: 'message_stop' });

/** vLLM's Messages stream (serving_messages.py): usage beside the message, [DONE] after message_stop. */
const VLLM_ANTHROPIC_CAPTURE =
  ev('message_start', { type: 'message_start', message: { id: 'chatcmpl-1', content: [], model: 'llama' }, usage: { input_tokens: 9, output_tokens: 0 } }) +
  ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } }) +
  ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'b' } }) +
  ev('content_block_stop', { type: 'content_block_stop', index: 0 }) +
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { input_tokens: 9, output_tokens: 2 } }) +
  ev('message_stop', { type: 'message_stop' }) +
  'data: [DONE]\n\n';

const enc = new TextEncoder();

/** Feeds `bytes` to a fresh scanner in reads cut at `cuts`; read k arrives at time k. */
function scan(kind: EndpointKind, bytes: Uint8Array, cuts: number[]): StreamScan {
  const s = kind.newScanner!({ keepText: true });
  let at = 0;
  let t = 0;
  for (const c of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, c), t++);
    at = c;
  }
  s.end(t);
  return s;
}

const summary = (s: StreamScan) => ({
  events: s.contentEvents,
  reasoning: s.reasoningEvents,
  usage: s.usage,
  finish: s.finishReason,
  done: s.sawDone,
  after: s.eventsAfterDone,
  error: s.errorMessage,
  malformed: s.malformed,
  text: s.text,
});

describe('stream parsers on captures', () => {
  it('Responses: reasoning then answer deltas (empty ones are no content), usage at response.completed', () => {
    const s = scan(responsesKind, enc.encode(RESPONSES_CAPTURE), []);
    expect(summary(s)).toEqual({ events: 4, reasoning: 2, usage: { prompt_tokens: 12, completion_tokens: 4, reasoning_tokens: 2 }, finish: 'stop', done: true, after: 0, error: null, malformed: null, text: 'Think é中. Hello world🙂' });
    expect(s.firstReasoningMs).toBe(0);
    expect(s.firstAnswerMs).toBe(0);
  });

  it('Anthropic: thinking is reasoning, end_turn is stop, output tokens from message_delta', () => {
    const s = scan(anthropicKind, enc.encode(ANTHROPIC_CAPTURE), []);
    expect(summary(s)).toEqual({ events: 3, reasoning: 1, usage: { prompt_tokens: 25, completion_tokens: 7 }, finish: 'stop', done: true, after: 0, error: null, malformed: null, text: 'Hmm.Hi there' });
  });

  it("vLLM's Messages: usage beside the message, max_tokens is length, the trailing [DONE] is not an event after the end", () => {
    const s = scan(anthropicKind, enc.encode(VLLM_ANTHROPIC_CAPTURE), []);
    expect(summary(s)).toEqual({ events: 2, reasoning: 0, usage: { prompt_tokens: 9, completion_tokens: 2 }, finish: 'length', done: true, after: 0, error: null, malformed: null, text: 'ab' });
  });

  it('error events, response.incomplete and a payload that is not JSON', () => {
    const overloaded = ev('message_start', { type: 'message_start', message: { id: 'm', usage: { input_tokens: 3, output_tokens: 1 } } }) + ev('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(scan(anthropicKind, enc.encode(overloaded), []).errorMessage).toBe('Overloaded');
    const incomplete = ev('response.output_text.delta', { type: 'response.output_text.delta', delta: 'x' }) + ev('response.incomplete', { type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 1, output_tokens: 1 } } });
    const s = scan(responsesKind, enc.encode(incomplete), []);
    expect([s.finishReason, s.sawDone, s.usage]).toEqual(['length', true, { prompt_tokens: 1, completion_tokens: 1 }]);
    expect(scan(responsesKind, enc.encode('data: {"type":"response.output_text.delta","delta":\n\n'), []).malformed).toBe('{"type":"response.output_text.delta","delta":');
    const failed = ev('response.failed', { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'engine died' } } });
    expect(scan(responsesKind, enc.encode(failed), []).errorMessage).toBe('engine died');
  });

  it('an event after the terminal one is only counted', () => {
    const extra = ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'late' } });
    const s = scan(anthropicKind, enc.encode(ANTHROPIC_CAPTURE + extra), []);
    expect([s.contentEvents, s.eventsAfterDone, s.text]).toEqual([3, 1, 'Hmm.Hi there']);
  });

  // The same property as the OpenAI scanner's: the reads a stream arrives in change nothing.
  for (const [name, kind, capture] of [
    ['Responses', responsesKind, RESPONSES_CAPTURE],
    ['Anthropic', anthropicKind, ANTHROPIC_CAPTURE],
    ['vLLM Messages', anthropicKind, VLLM_ANTHROPIC_CAPTURE],
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

describe('whole answers', () => {
  it('a response object: output_text and reasoning_text parts, incomplete is length', () => {
    const body = {
      id: 'resp_1',
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'hm ' }], summary: [] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'yes', annotations: [] }] },
      ],
      usage: { input_tokens: 5, output_tokens: 3, output_tokens_details: { reasoning_tokens: 1 } },
    };
    expect(parseResponseObject(body)).toEqual({ text: 'hm yes', usage: { prompt_tokens: 5, completion_tokens: 3, reasoning_tokens: 1 }, finishReason: 'length' });
    expect(parseResponseObject({ choices: [] })).toBeNull();
  });

  it('a message: text and thinking blocks, tool_use is tool_calls', () => {
    const body = { id: 'msg_1', type: 'message', content: [{ type: 'thinking', thinking: 'a' }, { type: 'text', text: 'b' }], stop_reason: 'tool_use', usage: { input_tokens: 4, output_tokens: 2 } };
    expect(parseMessage(body)).toEqual({ text: 'ab', usage: { prompt_tokens: 4, completion_tokens: 2 }, finishReason: 'tool_calls' });
    expect(parseMessage({ choices: [] })).toBeNull();
  });

  it('an embeddings list: one entry per input (floats or base64), usage prompt tokens', () => {
    const body = { object: 'list', data: [{ index: 0, object: 'embedding', embedding: [0.1, -0.2] }, { index: 1, object: 'embedding', embedding: 'AAAA' }], usage: { prompt_tokens: 7, total_tokens: 7 } };
    expect(parseEmbeddings(body)).toEqual({ text: '', usage: { prompt_tokens: 7, completion_tokens: 0 }, finishReason: null, inputs: 2 });
    expect(parseEmbeddings({ data: [{ index: 0 }] })).toBeNull();
    expect(parseEmbeddings({ choices: [{ text: 'x' }] })).toBeNull();
  });
});
