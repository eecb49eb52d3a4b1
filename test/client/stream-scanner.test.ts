import { describe, expect, it } from 'vitest';
import { OpenAIStreamScanner } from '../../src/client/stream-scanner.js';
import { ReferenceScanner, summarize, type ScanSummary } from './stream-scanner-reference.js';

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

/** Feed the same reads to the scanner and the reference; read i gets time i + 1, end() gets 1000. */
function both(reads: Uint8Array[], keepText = false): { fast: ScanSummary; ref: ScanSummary } {
  const f = new OpenAIStreamScanner({ keepText });
  const r = new ReferenceScanner(keepText);
  reads.forEach((b, i) => {
    f.push(b, i + 1);
    r.push(b, i + 1);
  });
  f.end(1000);
  r.end(1000);
  return { fast: summarize(f), ref: r.out };
}

function agree(reads: Uint8Array[], keepText = false): ScanSummary {
  const { fast, ref } = both(reads, keepText);
  expect(fast).toEqual(ref);
  return fast;
}

/** Every split of `all` into two reads, and one read per byte, agree with the reference. */
function agreeAtEverySplit(all: Uint8Array, keepText = false): ScanSummary {
  const whole = agree([all], keepText);
  for (let k = 0; k <= all.length; k++) agree([all.subarray(0, k), all.subarray(k)], keepText);
  const perByte = Array.from(all, (_, i) => all.subarray(i, i + 1));
  agree(perByte, keepText);
  return whole;
}

const chat = (delta: object, extra: object = {}): string =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }], ...extra });
const ev = (payload: string, eol = '\n'): string => `data: ${payload}${eol}${eol}`;

describe('OpenAIStreamScanner: reasoning models', () => {
  it('times the first reasoning and the first answer event apart and counts reasoning events (hand-made vLLM stream)', () => {
    // read 1: role delta + 2 reasoning deltas; read 2: 1 reasoning delta (older name) + the first answer; read 3: answer, usage, [DONE]
    const reads = [
      ev(chat({ role: 'assistant', content: '' })) + ev(chat({ reasoning: 'Let' })) + ev(chat({ reasoning: ' me' })),
      ev(chat({ reasoning_content: ' think' })) + ev(chat({ content: 'Four' })),
      ev(chat({ content: '.' })) + ev(JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 3 } } })) + 'data: [DONE]\n\n',
    ].map(bytes);
    const s = agree(reads, true);
    expect(s.contentTimes).toEqual([1, 1, 2, 2, 3]);
    expect(s.reasoningEvents).toBe(3);
    expect(s.firstReasoningMs).toBe(1);
    expect(s.firstAnswerMs).toBe(2);
    expect(s.usage).toEqual({ prompt_tokens: 3, completion_tokens: 5, reasoning_tokens: 3 });
    expect(s.text).toBe('Let me thinkFour.');
    for (let k = 0; k < 3; k++) agreeAtEverySplit(bytes(reads.map((r) => new TextDecoder().decode(r)).join('')), k === 1);
  });

  it('an event carrying both reasoning and answer counts for both; tool calls are answer content', () => {
    const s = agree([bytes(ev(chat({ reasoning_content: 'a', content: 'b' })) + ev(chat({ tool_calls: [{ index: 0 }] })))]);
    expect(s.contentEvents).toBe(2);
    expect(s.reasoningEvents).toBe(1);
    expect(s.firstReasoningMs).toBe(1);
    expect(s.firstAnswerMs).toBe(1);
  });

  it('a plain stream has no reasoning; hidden reasoning shows only in usage', () => {
    const s = agree([bytes(ev(chat({ content: 'x' })) + ev(JSON.stringify({ choices: [], usage: { completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 8 } } })))]);
    expect(s.reasoningEvents).toBe(0);
    expect(s.firstReasoningMs).toBeNull();
    expect(s.firstAnswerMs).toBe(1);
    expect(s.usage?.reasoning_tokens).toBe(8);
  });
});

describe('OpenAIStreamScanner: meaning of events', () => {
  it('counts content, not role-only deltas, and reads a vLLM-style separate usage chunk', () => {
    const s = [
      ev(chat({ role: 'assistant', content: '' })),
      ev(chat({ content: 'Hel' })),
      ev(chat({ content: 'lo' })),
      ev(JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null })),
      ev(JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })),
      ev('[DONE]'),
    ].join('');
    const out = agreeAtEverySplit(bytes(s), true);
    // role-only delta and usage chunk are not content: 2 content events
    expect(out.contentEvents).toBe(2);
    expect(out.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2 });
    expect(out.finishReason).toBe('stop');
    expect(out.sawDone).toBe(true);
    expect(out.text).toBe('Hello');
    expect(out.malformed).toBeNull();
  });

  it('ignores and counts events after [DONE]: content, usage, finish_reason and errors (hostile server)', () => {
    const s = [
      ev(chat({ content: 'a' })),
      ev(chat({ content: 'b' })),
      ev(JSON.stringify({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 2 } })),
      ev('[DONE]'),
      ev(chat({ content: 'c' })), // same shape as the template: must not take the fast path
      ev(JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 1, completion_tokens: 99 } })),
      ev(JSON.stringify({ error: { message: 'late' } })),
      ev('[DONE]'),
    ].join('');
    const out = agreeAtEverySplit(bytes(s), true);
    expect(out.contentEvents).toBe(2);
    expect(out.text).toBe('ab');
    expect(out.usage).toEqual({ prompt_tokens: 4, completion_tokens: 2 });
    expect(out.finishReason).toBeNull();
    expect(out.errorMessage).toBeNull();
    expect(out.eventsAfterDone).toBe(4);
  });

  it('reads llama.cpp-style usage together with content and finish_reason in the last chunk', () => {
    const last = JSON.stringify({ choices: [{ index: 0, delta: { content: '!' }, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 9 } });
    const out = agreeAtEverySplit(bytes(ev(chat({ content: 'a' })) + ev(last)));
    expect(out.contentEvents).toBe(2);
    expect(out.usage).toEqual({ prompt_tokens: 3, completion_tokens: 9 });
    expect(out.finishReason).toBe('length');
  });

  it('ignores "usage": null and keeps an earlier usage', () => {
    const s = ev(JSON.stringify({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } })) + ev(chat({ content: 'x' }, { usage: null }));
    const out = agreeAtEverySplit(bytes(s));
    expect(out.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2 });
    expect(out.contentEvents).toBe(1);
  });

  it('counts /v1/completions text, reasoning and tool-call deltas as content', () => {
    const s = [
      ev(JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: ' hi', logprobs: null, finish_reason: null }] })),
      ev(JSON.stringify({ choices: [{ index: 0, text: '', finish_reason: null }] })),
      ev(chat({ reasoning_content: 'think' })),
      ev(chat({ reasoning: 'more' })),
      ev(chat({ content: null, tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '' } }] })),
      ev(chat({ tool_calls: [] })),
    ].join('');
    const out = agreeAtEverySplit(bytes(s), true);
    expect(out.contentEvents).toBe(4);
    expect(out.text).toBe(' hithinkmore');
  });

  it('is not fooled by key-like text inside strings or by logprobs.content', () => {
    const s = [
      ev(chat({ role: 'assistant', content: '' }, { note: '"content":"x"', n2: '\\"text\\":\\"y\\"' })),
      ev(JSON.stringify({ choices: [{ delta: {}, logprobs: { content: [{ token: 'a', logprob: -1 }] }, finish_reason: null }] })),
      ev(chat({ content: '"text":"x"' })),
      ev(chat({ content: '\\' })),
      ev(chat({ content: '\\"' })),
    ].join('');
    const out = agreeAtEverySplit(bytes(s), true);
    expect(out.contentEvents).toBe(3);
    expect(out.text).toBe('"text":"x"\\\\"');
  });

  it('treats duplicated and escaped keys as JSON.parse does', () => {
    const s = [
      ev('{"choices":[{"delta":{"content":"x","content":""}}]}'), // last wins: empty
      ev('{"choices":[{"delta":{"cont\\u0065nt":"y"}}]}'), // escaped key: content
      ev('{"choices":[{"delta":{"content":"z"}}],"choices":[]}'), // last wins: none
    ].join('');
    expect(agreeAtEverySplit(bytes(s)).contentEvents).toBe(1);
  });

  it('reports error events and malformed payloads', () => {
    const s = [
      ev(chat({ content: 'a' })),
      ev('{"choices":[{"delta":{"content":"b"}}]'), // truncated JSON
      ev('not json at all'),
      ev('{"error":{"message":"overloaded","type":"server_error","code":503}}'),
      ev('{"object":"error","message":"second"}'),
    ].join('');
    const out = agreeAtEverySplit(bytes(s));
    expect(out.contentEvents).toBe(1);
    expect(out.malformed).toBe('{"choices":[{"delta":{"content":"b"}}]');
    expect(out.errorMessage).toBe('overloaded');
  });

  it('reads the vLLM {"object":"error"} form and non-object JSON as malformed', () => {
    const out = agreeAtEverySplit(bytes(ev('{"object":"error","message":"bad","type":"BadRequestError","code":400}') + ev('[1,2]') + ev('42')));
    expect(out.errorMessage).toBe('bad');
    expect(out.malformed).toBe('[1,2]');
  });

  it('truncates a long malformed payload to 200 characters', () => {
    const out = agree([bytes(ev('x'.repeat(500)))]);
    expect(out.malformed).toBe('x'.repeat(200));
  });
});

describe('OpenAIStreamScanner: SSE framing', () => {
  const body = (eol: string): string =>
    [`: keep-alive${eol}`, `event: message${eol}id: 7${eol}retry: 100${eol}`, `data: ${chat({ content: 'é' })}${eol}${eol}`, `data:${chat({ content: '中文🙂' })}${eol}${eol}`, `data: [DONE]${eol}${eol}`].join('');

  for (const [name, eol] of [
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ] as const) {
    it(`handles ${name} line endings at every split`, () => {
      const out = agreeAtEverySplit(bytes(body(eol)), true);
      expect(out.contentEvents).toBe(2);
      expect(out.text).toBe('é中文🙂');
      expect(out.sawDone).toBe(true);
    });
  }

  it('joins multi-line data with LF (JSON split over data lines)', () => {
    const pretty = JSON.stringify({ choices: [{ index: 0, delta: { content: 'multi' } }] }, null, 1);
    const s = pretty.split('\n').map((l) => `data: ${l}\r\n`).join('') + '\r\n' + 'data: {"choices":\ndata: []}\n\n';
    const out = agreeAtEverySplit(bytes(s), true);
    expect(out.contentEvents).toBe(1);
    expect(out.text).toBe('multi');
  });

  it('mixes terminators, a CR directly followed by LF across reads, and fields without colon', () => {
    const s = `data\r\n\r\ndata: ${chat({ content: 'a' })}\r\r` + `data: ${chat({ content: 'b' })}\n\r\n` + 'datax: 1\n\ndata :2\n\n';
    const out = agreeAtEverySplit(bytes(s));
    expect(out.contentEvents).toBe(2);
  });

  it('flushes a final event without the blank line at end()', () => {
    const f = new OpenAIStreamScanner();
    f.push(bytes(`data: ${chat({ content: 'a' })}\n\ndata: ${chat({ content: 'b' })}`), 5);
    expect(f.contentEvents).toBe(1);
    f.end(9);
    expect(Array.from(f.contentTimes())).toEqual([5, 9]);
    agreeAtEverySplit(bytes(`data: ${chat({ content: 'a' })}\ndata: [1]`));
  });

  it('stamps every event completed by a read with that read’s time', () => {
    const a = `data: ${chat({ content: 'a' })}\n\n`;
    const f = new OpenAIStreamScanner();
    f.push(bytes(a + a + a.slice(0, 20)), 10);
    f.push(bytes(a.slice(20, -1)), 20); // event complete but for the last LF
    f.push(bytes('\n' + a), 30);
    f.end(40);
    expect(Array.from(f.contentTimes())).toEqual([10, 10, 30, 30]);
  });

  it('drops a leading BOM, even split across reads, but not a BOM later on', () => {
    const s = '\uFEFF' + ev(chat({ content: 'x' })) + 'data: \uFEFF{}\n\n';
    const out = agreeAtEverySplit(bytes(s));
    expect(out.contentEvents).toBe(1);
    expect(out.malformed).toBe('\uFEFF{}');
  });

  it('handles invalid UTF-8 and multi-byte characters split anywhere', () => {
    const good = bytes(ev(chat({ content: '🙂é' })));
    const bad = new Uint8Array([...bytes('data: {"choices":[{"text":"'), 0xf0, 0x9f, 0xff, ...bytes('"}]}\n\ndata: \xff\n\n')]);
    const all = new Uint8Array([...good, ...bad, 0xe2, 0x82]);
    const out = agreeAtEverySplit(all);
    expect(out.contentEvents).toBe(2);
  });

  it('handles a 1 MB line split into network-sized reads', () => {
    const big = 'y'.repeat(1 << 20);
    const s = bytes(ev(chat({ content: big })) + ev(chat({ content: 'z' })) + ev('{"choices":[{"text":"' + big));
    // (the string-slicing reference is quadratic in read count × line length: no tiny reads here)
    for (const size of [4096, 65536, s.length]) {
      const reads: Uint8Array[] = [];
      for (let i = 0; i < s.length; i += size) reads.push(s.subarray(i, i + size));
      const { fast, ref } = both(reads, true);
      expect(fast).toEqual(ref);
      expect(fast.contentEvents).toBe(2);
      expect(fast.malformed?.length).toBe(200);
    }
  });

  it('stays correct when events vary beyond the content (template dropped and relearned)', () => {
    let s = '';
    for (let i = 0; i < 400; i++) s += ev(chat({ content: i % 5 === 0 ? '' : `t${i}` }, { obfuscation: 'x'.repeat(i % 13) }));
    for (let i = 0; i < 400; i++) s += ev(chat({ content: i % 7 === 0 ? '' : `u${i}\n"` }));
    const all = bytes(s);
    const reads: Uint8Array[] = [];
    for (let i = 0; i < all.length; i += 1000) reads.push(all.subarray(i, i + 1000));
    const out = agree(reads, true);
    expect(out.contentEvents).toBe(800 - 80 - 58);
  });

  it('returns content times without much slack (records keep them for the whole run)', () => {
    const f = new OpenAIStreamScanner();
    for (let i = 0; i < 300; i++) f.push(bytes(ev(chat({ content: 'x' }))), i);
    f.end(999);
    const t = f.contentTimes();
    expect(t.length).toBe(300);
    expect(t[299]).toBe(299);
    expect(t.buffer.byteLength).toBeLessThanOrEqual(300 * 8 * 1.125);
  });

  it('keeps its own copy of bytes the caller may reuse', () => {
    const f = new OpenAIStreamScanner({ keepText: true });
    const buf = bytes(`data: ${chat({ content: 'keep' })}\n`);
    f.push(buf, 1);
    buf.fill(0x20);
    f.push(bytes('\n'), 2);
    f.end(3);
    expect(f.text).toBe('keep');
    expect(f.contentEvents).toBe(1);
  });
});
