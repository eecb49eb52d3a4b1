import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OpenAIStreamScanner } from '../../src/client/stream-scanner.js';
import { ReferenceScanner, summarize } from './stream-scanner-reference.js';

const enc = new TextEncoder();

// ---- payload generators -------------------------------------------------------------------

const tricky = fc.constantFrom('', '"text":"x"', '\\"content\\":\\"y\\"', '\\', '"', '\n', '\r\n', 'é中🙂', '\u2028', 'data: x\n\n', '}]}', '\u0000');
const str = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }), tricky);
const usage = fc.oneof(
  fc.constant(null),
  fc.record({ prompt_tokens: fc.nat(5000), completion_tokens: fc.nat(5000), total_tokens: fc.nat(9000) }),
  fc.record({ completion_tokens: fc.oneof(fc.nat(), fc.constant(null)) }),
  fc.record({
    prompt_tokens: fc.nat(5000),
    completion_tokens: fc.nat(5000),
    completion_tokens_details: fc.oneof(fc.constant(null), fc.record({ reasoning_tokens: fc.oneof(fc.nat(5000), fc.constant(null), fc.constant('7')) }, { requiredKeys: [] }), fc.constant([1])),
  }),
);
const toolCalls = fc.oneof(
  fc.constant([]),
  fc.constant(null),
  fc.array(fc.record({ index: fc.nat(3), function: fc.record({ name: str, arguments: str }) }), { minLength: 1, maxLength: 2 }),
);
const delta = fc.record(
  { role: fc.constant('assistant'), content: fc.oneof(str, fc.constant(null)), reasoning_content: str, reasoning: fc.oneof(str, fc.constant(null)), tool_calls: toolCalls },
  { requiredKeys: [] },
);
const logprobs = fc.oneof(fc.constant(null), fc.record({ content: fc.array(fc.record({ token: str, logprob: fc.double({ noNaN: true, noDefaultInfinity: true }) }), { maxLength: 2 }) }));
const choice = fc.record(
  { index: fc.nat(3), text: fc.oneof(str, fc.constant(null)), delta, logprobs, finish_reason: fc.oneof(fc.constant(null), fc.constantFrom('stop', 'length', 'tool_calls')) },
  { requiredKeys: [] },
);
const chunk = fc.record(
  {
    id: fc.constant('chatcmpl-1'),
    object: fc.constantFrom('chat.completion.chunk', 'text_completion', 'error'),
    created: fc.integer(),
    model: str,
    choices: fc.array(choice, { maxLength: 2 }),
    usage,
    error: fc.oneof(fc.constant(null), fc.record({ message: str, code: fc.nat(600) }), str),
    message: str,
  },
  { requiredKeys: [] },
);
const typical = fc.tuple(str, fc.boolean()).map(([c, usageNull]) =>
  JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: c }, logprobs: null, finish_reason: null }], ...(usageNull ? { usage: null } : {}) }),
);
/** A thinking model's reasoning delta, under vLLM's older and newer names. */
const typicalReasoning = fc.tuple(str, fc.constantFrom('reasoning_content', 'reasoning'), fc.boolean()).map(([c, key, withNull]) =>
  JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { [key]: c, ...(withNull ? { content: null } : {}) }, logprobs: null, finish_reason: null }] }),
);
const serialized = fc.tuple(chunk, fc.constantFrom(undefined, 1, '\t')).map(([o, sp]) => JSON.stringify(o, null, sp));
const handmade = fc.constantFrom(
  '[DONE]', ' [DONE] ', '', '   ', '[1]', 'null', '"s"', '42', '01', '{"a":01}', '{"a":1.}', '{"a":-}', '{"a":tru}', '{"a":nul}', '{"a":nulx}', '{"a":nuLl,"b":1}', '{"a":trUe}', '{"a":fals}', '{"a":1e}', '{"a":-0.5E+3}', '{"a":[1,]}', '{"a":{"b":1,}}', '{"a" 1}',
  '{"choices":[{"delta":{"content":"x","content":""}}]}', '{"choices":[{"delta":{"cont\\u0065nt":"y"}}]}', '{"choices":[{"text":"a"}],"choices":[]}',
  '{"choices":[{"delta":{"content":"\\ud83d"}}]}', '{"choices":[{"delta":{"content":"\\x"}}]}', '{"choices":[{"delta":{"content":"\\u12g4"}}]}',
  '{"choices":[1,{"text":"t"}]}', '{"choices":{"text":"t"}}', '{"choices":[{"delta":null,"text":7}]}', '{"usage":[1]}', '{"usage":{}}',
  '{"choices":[{"delta":{"tool_calls":{}}}]}', '{"choices":[{"delta":{"tool_calls":[ ]}}]}', '{ "choices" : [ { "text" : "sp" } ] }\t',
  '{"choices":[{"text":"a"}]} x', '{"choices":[{"text":"a"}]}}', '{}', '{"error":null,"choices":[{"text":"e"}]}', '{"object":"err","choices":[]}',
);
/** A valid payload with one character replaced or the tail cut off. */
const mutated = fc.tuple(fc.oneof(typical, serialized), fc.nat(), fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', 'n', 'l', 'x', 'e', '.', '-', 'é', '', '\t', '\u0001')).map(([s, at, ch]) => {
  const k = at % (s.length + 1);
  return ch === '' ? s.slice(0, k) : s.slice(0, k) + ch + s.slice(k + 1);
});
const payload = fc.oneof({ weight: 4, arbitrary: typical }, { weight: 2, arbitrary: typicalReasoning }, { weight: 3, arbitrary: serialized }, { weight: 2, arbitrary: handmade }, { weight: 2, arbitrary: mutated }, { weight: 1, arbitrary: str });

// ---- SSE framing generators ---------------------------------------------------------------

const eol = fc.constantFrom('\n', '\r', '\r\n');
const extraLine = fc.constantFrom(': comment', ':', 'event: message', 'id: 3', 'retry: 10', 'datax: 1', 'dat', 'foo', 'data');
const dataPrefix = fc.constantFrom('data: ', 'data:', 'data:  ');
/** One event: extra lines, then the payload's lines (JSON with newlines becomes multi-line data). */
const event = fc.tuple(fc.array(extraLine, { maxLength: 2 }), payload, dataPrefix, fc.array(eol, { minLength: 8, maxLength: 8 }), fc.boolean()).map(
  ([extra, p, prefix, eols, splitData]) => {
    const lines = [...extra, ...p.split('\n').map((l) => prefix + l)];
    if (splitData && lines.length > 0 && p.length > 2) {
      const last = lines.pop() as string;
      const k = Math.floor(last.length / 2);
      lines.push(last.slice(0, k), 'data:' + last.slice(k));
    }
    // a payload with CR inside becomes extra lines, which is fine: both parsers see the same bytes
    return lines.map((l, i) => l + eols[i % eols.length]).join('') + eols[7];
  },
);
const stream = fc.tuple(fc.boolean(), fc.array(event, { maxLength: 8 }), fc.constantFrom('', 'data: {"choices":[{"text":"tail"}]}', 'data: [DONE]\n', ': x'));

// ---- template-shaped streams: runs of events identical but for the content string ----------

/** Shapes of real servers' content events; BODY is replaced by a raw JSON string body. */
const shapes = [
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"BODY"},"logprobs":null,"finish_reason":null}]}',
  'data:{"choices":[{"text":"BODY","index":0,"logprobs":null,"finish_reason":null}],"usage":null}',
  'data: {"choices":[{"delta":{"reasoning_content":"BODY","content":null},"logprobs":{"content":[{"token":"x"}]}}]} \t',
  'data: {"choices":[{"delta":{"role":"assistant","content":"BODY"}}]}',
  'data: {"choices":[{"delta":{"content":"BODY","tool_calls":[]}}]}',
  'data: {"choices":[{"delta":{"content":"BODY"}}],"object":"chat.completion.chunk"}',
];
/** Raw string bodies: valid and invalid escapes, quotes, control characters, multi-byte text. */
const rawBody = fc
  .array(fc.constantFrom('a', ' tok', 'é', '🙂', '\\"', '\\\\', '\\n', '\\u00e9', '\\uD83D', '\\u12', '\\u12g4', '\\uz123', '\\u0g00', '\\u00g0', '\\x', '\\', '"', '\u0001', '\t', '\r', '\n', ':', '}', '"content":"x"'), { maxLength: 4 })
  .map((xs) => xs.join(''));
const runEvent = fc.tuple(rawBody, fc.option(fc.tuple(fc.nat(), fc.boolean(), fc.constantFrom('"', '\\', '}', ']', ' ', 'x', '0', '\r', '\n', '\u0000', 'é', '')), { freq: 3 }), fc.constantFrom('\n\n', '\n\n', '\r\n\r\n', '\r\r', '\n:c\n\n', '\ndata: [DONE]\n\n', '\ndata: {}\n\n', '\ndata:  \n\n', '\r\ndata\r\n\r\n'));
const templateStream = fc.tuple(fc.constantFrom(...shapes), fc.array(runEvent, { minLength: 2, maxLength: 10 })).map(([shape, evs]) =>
  evs
    .map(([body, mut, end]) => {
      let line = shape.replace('BODY', body);
      if (mut) {
        const [at, insert, ch] = mut;
        const k = at % (line.length + 1); // insert anywhere (also after the last byte) or replace one byte
        line = line.slice(0, k) + ch + line.slice(insert ? k : k + 1);
      }
      return line + end;
    })
    .join(''),
);

/**
 * A thinking model's stream: a run of reasoning events (one shape), maybe one event carrying both,
 * then a run of answer events (another shape) — the template must switch kinds and keep count.
 */
const reasoningShapes = [
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"BODY"},"logprobs":null,"finish_reason":null}]}',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning":"BODY","content":null},"logprobs":null,"finish_reason":null}]}',
  'data: {"choices":[{"delta":{"content":null,"reasoning_content":"BODY"}}]}',
];
const bothShape = 'data: {"choices":[{"delta":{"reasoning_content":"BODY","content":"BODY"}}]}';
const thinkingStream = fc
  .tuple(fc.constantFrom(...reasoningShapes), fc.array(runEvent, { minLength: 1, maxLength: 6 }), fc.boolean(), fc.constantFrom(...shapes.slice(0, 2)), fc.array(runEvent, { minLength: 0, maxLength: 6 }))
  .map(([rShape, rEvs, both, aShape, aEvs]) => {
    const render = (shape: string, [body, mut, end]: [string, [number, boolean, string] | null, string]) => {
      let line = shape.replaceAll('BODY', body);
      if (mut) {
        const [at, insert, ch] = mut;
        const k = at % (line.length + 1);
        line = line.slice(0, k) + ch + line.slice(insert ? k : k + 1);
      }
      return line + end;
    };
    return [...rEvs.map((e) => render(rShape, e)), ...(both ? [bothShape.replaceAll('BODY', 'x') + '\n\n'] : []), ...aEvs.map((e) => render(aShape, e)), 'data: {"choices":[],"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}\n\n'].join('');
  });

function splitAt(b: Uint8Array, cuts: number[]): Uint8Array[] {
  const pos = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of pos) {
    out.push(b.subarray(prev, c));
    prev = c;
  }
  out.push(b.subarray(prev));
  return out;
}

function check(all: Uint8Array, cuts: number[], keepText: boolean): void {
  const f = new OpenAIStreamScanner({ keepText });
  const r = new ReferenceScanner(keepText);
  splitAt(all, cuts).forEach((b, i) => {
    f.push(b, i + 1);
    r.push(b, i + 1);
  });
  f.end(1e6);
  r.end(1e6);
  expect(summarize(f)).toEqual(r.out);
}

describe('OpenAIStreamScanner agrees with the reference parser', () => {
  it('on random streams split at random points', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), ([bom, events, tail], cuts, keepText) => {
        check(enc.encode((bom ? '\uFEFF' : '') + events.join('') + tail), cuts, keepText);
      }),
      { numRuns: 600 },
    );
  });

  it('on random byte-level corruption (invalid UTF-8, stray CR/LF/NUL)', () => {
    const junk = [0x0a, 0x0d, 0x00, 0xff, 0xe2, 0x82, 0xc3, 0x22, 0x5c, 0x3a];
    fc.assert(
      fc.property(stream, fc.array(fc.tuple(fc.nat(), fc.nat(junk.length - 1)), { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 8 }), ([bom, events, tail], flips, cuts) => {
        const all = enc.encode((bom ? '\uFEFF' : '') + events.join('') + tail);
        for (const [at, j] of flips) if (all.length > 0) all[at % all.length] = junk[j];
        check(all, cuts, true);
      }),
      { numRuns: 300 },
    );
  });

  it('on single events (every effect visible, nothing hidden by an earlier event)', () => {
    fc.assert(
      fc.property(payload, dataPrefix, fc.boolean(), (p, prefix, keepText) => {
        check(enc.encode(p.split('\n').map((l) => prefix + l + '\n').join('') + '\n'), [], keepText);
      }),
      { numRuns: 3000 },
    );
  });

  it('on runs of events that differ only in the content string, or in one byte', () => {
    fc.assert(
      fc.property(templateStream, fc.array(fc.nat(), { maxLength: 4 }), fc.boolean(), (str, cuts, keepText) => {
        check(enc.encode(str), cuts, keepText);
      }),
      { numRuns: 1500 },
    );
  });

  it('on thinking streams: reasoning runs, then answer runs (first reasoning / first answer times, reasoning count, usage)', () => {
    fc.assert(
      fc.property(thinkingStream, fc.array(fc.nat(), { maxLength: 4 }), fc.boolean(), (str, cuts, keepText) => {
        check(enc.encode(str), cuts, keepText);
      }),
      { numRuns: 1500 },
    );
  });

  it('on every single split point of random small streams', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 3 }), (events) => {
        const all = enc.encode(events.join(''));
        for (let k = 0; k <= all.length; k++) check(all, [k], false);
      }),
      { numRuns: 40 },
    );
  });
});
