import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl } from '../../src/config/base-url.js';
import { endpointUrl } from '../../src/client/endpoint-url.js';

describe('--base-url as users write it', () => {
  it.each([
    ['http://h:8000', '/v1/completions', 'http://h:8000', '/v1/completions'],
    ['http://h:8000/', '/v1/completions', 'http://h:8000', '/v1/completions'],
    ['http://h:8000/v1', '/v1/completions', 'http://h:8000', '/v1/completions'],
    ['http://h:8000/v1/', '/v1/chat/completions', 'http://h:8000', '/v1/chat/completions'],
    ['http://h:8000/v1//', '/v1/completions', 'http://h:8000', '/v1/completions'],
    // The OpenAI SDK's pairing: base ends with /v1, path without it.
    ['http://h:8000/v1', '/completions', 'http://h:8000', '/v1/completions'],
    ['https://gw.example/openai/v1', '/v1/completions', 'https://gw.example/openai', '/v1/completions'],
    ['http://u:p@h:8000/v1/?key=abc', '/v1/completions', 'http://u:p@h:8000?key=abc', '/v1/completions'],
  ])('%s + %s → %s + %s', (base, endpoint, wantBase, wantEndpoint) => {
    const n = normalizeBaseUrl(base, endpoint);
    expect(n).toEqual({ baseUrl: wantBase, endpoint: wantEndpoint });
    // And the request URL has one /v1 and no double slash.
    expect(endpointUrl(n.baseUrl, n.endpoint).pathname).toBe(`${new URL(wantBase).pathname.replace(/\/$/, '')}${wantEndpoint}`);
  });
});
