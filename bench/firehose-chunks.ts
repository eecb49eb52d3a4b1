/**
 * The bytes the firehose sends, shared by the firehose server and the in-memory parse
 * benchmark. Content chunks follow vLLM's layout byte for byte; every event has the same
 * length so a block can be cut at event boundaries.
 */

const enc = new TextEncoder();

// Same-length tokens so every event has the same byte length (one has a 2-byte UTF-8 char,
// so non-ASCII decoding is on the path).
const TOKENS = [' the', ' of ', ' and', ' to ', ' in ', ' a b', ' is ', ' caf', 'é o'];

const chunk = (content: string): string =>
  `data: {"id":"chatcmpl-7d2f3a9c41b04e6f","object":"chat.completion.chunk","created":1764400000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}\n\n`;

/** `n` content events, all the same byte length (`firehoseBlock.eventBytes`). */
export function firehoseBlock(n: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < n; i++) parts.push(enc.encode(chunk(TOKENS[i % TOKENS.length] as string)));
  const len = parts[0]!.length;
  if (!parts.every((p) => p.length === len)) throw new Error('firehose events must have equal byte length');
  const out = new Uint8Array(len * n);
  parts.forEach((p, i) => out.set(p, i * len));
  return out;
}
firehoseBlock.eventBytes = enc.encode(chunk(TOKENS[0] as string)).length;

export const firehoseHead = enc.encode(
  `data: {"id":"chatcmpl-7d2f3a9c41b04e6f","object":"chat.completion.chunk","created":1764400000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`,
);

export function firehoseTail(events: number): Uint8Array {
  return enc.encode(
    `data: {"id":"chatcmpl-7d2f3a9c41b04e6f","object":"chat.completion.chunk","created":1764400000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length","stop_reason":null}]}\n\n` +
      `data: {"id":"chatcmpl-7d2f3a9c41b04e6f","object":"chat.completion.chunk","created":1764400000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":10,"total_tokens":${10 + events},"completion_tokens":${events}}}\n\n` +
      'data: [DONE]\n\n',
  );
}

/**
 * `n` content events that differ in more than the content string, like OpenAI's own API, which
 * adds an `obfuscation` padding field of varying length to every chunk: the scanner's template
 * never matches, so every event takes the full validating classifier.
 */
export function varyingBlock(n: number): Uint8Array {
  let s = '';
  for (let i = 0; i < n; i++) {
    const pad = 'abcdefghijklmnop'.slice(0, 1 + ((i * 7) % 15));
    s += `data: {"id":"chatcmpl-7d2f3a9c41b04e6f","object":"chat.completion.chunk","created":1764400000,"model":"gpt-4o-mini","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":${JSON.stringify(TOKENS[i % TOKENS.length])}},"logprobs":null,"finish_reason":null}],"obfuscation":"${pad}"}\n\n`;
  }
  return enc.encode(s);
}
