/**
 * What vLLM refuses, the simulator refuses too, in vLLM's words: engine settings at start-up (a
 * usage error, exit 2) and requests over HTTP (400 with an OpenAI error body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { runVirtual } from '../../src/sim/virtual.js';
import { runCli } from '../helpers/cli.js';
import { chunks, postJson, postSse } from './helpers.js';

const one = [{ id: 0, scheduled_ms: 0, prompt_tokens: 16, max_tokens: 4 }];

describe('engine settings vLLM refuses', () => {
  it('a tensor parallel size that does not divide the attention heads', () => {
    expect(() => runVirtual({ model: 'llama-3.1-8b', engine: { tensor_parallel: 3 }, requests: one })).toThrow(UserError);
    expect(() => runVirtual({ model: 'llama-3.1-8b', engine: { tensor_parallel: 3 }, requests: one })).toThrow(
      '--tensor-parallel-size: Total number of attention heads (32) must be divisible by tensor parallel size (3).',
    );
    // Qwen2.5-7B has 28 heads: 4 divides them, 8 does not
    expect(runVirtual({ model: 'qwen2.5-7b', engine: { tensor_parallel: 4 }, requests: one }).records[0]!.status).toBe('ok');
    expect(() => runVirtual({ model: 'qwen2.5-7b', engine: { tensor_parallel: 8 }, requests: one })).toThrow(/attention heads \(28\) must be divisible by tensor parallel size \(8\)/);
  });

  it('a block size outside vLLM’s choices', () => {
    expect(() => runVirtual({ engine: { block_size: 7 }, requests: one })).toThrow('--block-size: invalid choice: 7 (choose from 1, 8, 16, 32, 64, 128)');
    for (const bs of [1, 8, 32, 128]) expect(runVirtual({ engine: { block_size: bs }, requests: one }).records[0]!.status).toBe('ok');
  });

  it('the CLI says so in one line and exits 2, for sim run and for run with the built-in engine', async () => {
    const tp = await runCli(['sim', 'run', '--tensor-parallel-size', '3', '--num-prompts', '2', '--no-save']);
    expect(tp.code).toBe(2);
    expect(tp.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual(['error: --tensor-parallel-size: Total number of attention heads (32) must be divisible by tensor parallel size (3).']);
    expect(tp.stderr).not.toMatch(/\n\s+at /);
    const bs = await runCli(['run', '--block-size', '7', '--num-prompts', '2', '--no-save', '--progress', 'none']);
    expect(bs.code).toBe(2);
    const errors = bs.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('--block-size: invalid choice: 7 (choose from 1, 8, 16, 32, 64, 128)');
  });
});

describe('requests vLLM refuses (HTTP 400, OpenAI error body)', () => {
  let s: SimServer;
  beforeAll(async () => {
    s = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b', engine: { max_model_len: 4096 } } });
  });
  afterAll(() => s.close());

  const badRequest = (message: string) => ({ error: { message, type: 'BadRequestError', param: null, code: 400 } });

  it('max_tokens beyond what the prompt leaves of the context, with or without ignore_eos', async () => {
    for (const ignore_eos of [true, false]) {
      const r = await postJson(`${s.url}/v1/completions`, { prompt: [7, 8, 9], max_tokens: 4094, ignore_eos });
      expect(r.status).toBe(400);
      expect(r.json).toEqual(
        badRequest("'max_tokens' or 'max_completion_tokens' is too large: 4094. This model's maximum context length is 4096 tokens and your request has 3 input tokens (4094 > 4096 - 3)."),
      );
    }
    // exactly filling the context is allowed
    const fits = await postJson(`${s.url}/v1/completions`, { prompt: [7, 8, 9], max_tokens: 4093, ignore_eos: false });
    expect(fits.status).toBe(200);
  });

  it('a 1-token prompt with max_tokens 131072 on the model’s full context', async () => {
    const full = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' } });
    try {
      const r = await postJson(`${full.url}/v1/chat/completions`, { messages: [{ role: 'user', content: '' }], max_completion_tokens: 131072 });
      expect(r.status).toBe(400);
      const msg = (r.json as { error: { message: string } }).error.message;
      expect(msg).toMatch(/^'max_tokens' or 'max_completion_tokens' is too large: 131072\. This model's maximum context length is 131072 tokens and your request has \d+ input tokens \(131072 > 131072 - \d+\)\.$/);
      const c = await postJson(`${full.url}/v1/completions`, { prompt: [1], max_tokens: 131072 });
      expect(c.json).toEqual(badRequest("'max_tokens' or 'max_completion_tokens' is too large: 131072. This model's maximum context length is 131072 tokens and your request has 1 input tokens (131072 > 131072 - 1)."));
    } finally {
      await full.close();
    }
  });

  it('a prompt that fills the context', async () => {
    const r = await postJson(`${s.url}/v1/completions`, { prompt: Array.from({ length: 4096 }, (_, i) => i), max_tokens: 1 });
    expect(r.status).toBe(400);
    expect(r.json).toEqual(badRequest("This model's maximum context length is 4096 tokens. However, your request has 4096 input tokens. Please reduce the length of the input messages."));
  });

  it('without max_tokens, the default output limit is capped at what the context leaves', async () => {
    const r = await postJson(`${s.url}/v1/completions`, { prompt: Array.from({ length: 4090 }, (_, i) => i), ignore_eos: true });
    expect(r.status).toBe(200);
    expect((r.json as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(6);
  });

  it('stream: a boolean as pydantic reads it ("yes" streams, as in vLLM), anything else a validation error', async () => {
    const yes = await postSse(`${s.url}/v1/completions`, { prompt: 'hi', max_tokens: 2, ignore_eos: true, stream: 'yes' });
    expect(yes.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(chunks(yes)).toHaveLength(2);
    expect(yes.data.at(-1)).toBe('[DONE]');
    const no = await postJson(`${s.url}/v1/completions`, { prompt: 'hi', max_tokens: 2, stream: 'false' });
    expect(no.status).toBe(200);
    expect(no.json).toHaveProperty('usage');
    const maybe = await postJson(`${s.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }], stream: 'maybe' });
    expect(maybe.status).toBe(400);
    expect(maybe.json).toEqual(
      badRequest('1 validation error for ChatCompletionRequest\nstream\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value="maybe", input_type=str]'),
    );
    const obj = await postJson(`${s.url}/v1/completions`, { prompt: 'hi', stream: { on: true } });
    expect(obj.status).toBe(400);
    expect((obj.json as { error: { message: string } }).error.message).toMatch(/^1 validation error for CompletionRequest\nstream\n {2}Input should be a valid boolean \[type=bool_type/);
  });
});
