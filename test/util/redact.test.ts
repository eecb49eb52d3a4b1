import { describe, expect, it } from 'vitest';
import { Redactor, redactSecrets, redactUrl, secretValues } from '../../src/util/redact.js';

describe('redaction', () => {
  it.each([
    ['http://host:8000', 'http://host:8000'],
    ['http://host:8000/', 'http://host:8000/'],
    ['http://user:secret@host:8000', 'http://[redacted]@host:8000'],
    ['https://KEYONLY@gw.example/v1', 'https://[redacted]@gw.example/v1'],
    ['http://h/?api_key=abc&model=x', 'http://h/?api_key=[redacted]&model=x'],
    ['http://h?key=abc', 'http://h?key=[redacted]'],
    ['http://h/path?token=t1&access_token=t2&sig=s&api-version=2024', 'http://h/path?token=[redacted]&access_token=[redacted]&sig=[redacted]&api-version=2024'],
    ['not a url', 'not a url'],
  ])('redactUrl(%s) = %s', (url, want) => {
    expect(redactUrl(url)).toBe(want);
  });

  it('the secrets of a target: key, sensitive headers (and the token after a scheme), URL credentials', () => {
    const s = secretValues({ apiKey: 'sk-1', headers: { Authorization: 'Bearer tok-2', 'X-Org': 'public', 'X-Api-Key': 'k-3' }, baseUrl: 'http://u%40x:p%21w@h/?token=t-4' });
    for (const v of ['sk-1', 'Bearer tok-2', 'tok-2', 'k-3', 'u%40x', 'u@x', 'p%21w', 'p!w', 't-4']) expect(s).toContain(v);
    expect(s).not.toContain('public');
  });

  it('a Cookie header value echoed in an error body is scrubbed, other headers are kept', () => {
    const r = Redactor.forTarget({ headers: { Cookie: 'sid=s3cr3t-cookie-value', 'X-Trace': 'trace-visible-1' } });
    expect(r.scrub('401: cookie sid=s3cr3t-cookie-value expired (trace trace-visible-1)')).toBe('401: cookie [redacted] expired (trace trace-visible-1)');
  });

  it('scrubs every secret, longest first, also as it appears inside JSON strings, and URLs in text', () => {
    const r = new Redactor(['abc', 'abcdef', 'q"uote']);
    expect(r.scrub('key abcdef and abc')).toBe('key [redacted] and [redacted]');
    expect(r.scrub(JSON.stringify({ m: 'q"uote' }))).toBe('{"m":"[redacted]"}');
    expect(r.scrub('see http://a:b@h:1/x')).toBe('see http://[redacted]@h:1/x');
  });

  it('answer text: only the run\'s own secret values go, a link the answer cites keeps its query', () => {
    const r = Redactor.forTarget({ apiKey: 'sk-9999999', headers: { 'X-Api-Key': 'xk-88888888' }, baseUrl: 'http://h/v1?api_key=q-7777777' });
    expect(r.scrubKnown('echo sk-9999999 xk-88888888 /v1?api_key=q-7777777; see https://docs.example/?key=public')).toBe('echo [redacted] [redacted] /v1?api_key=[redacted]; see https://docs.example/?key=public');
    expect(r.empty).toBe(false);
    expect(new Redactor([]).empty).toBe(true);
    // A value too short to be a credential (a URL's user name) would take every such word out of the answers.
    const u = Redactor.forTarget({ baseUrl: 'http://u:pw-long-enough@h/v1' });
    expect(u.scrubKnown('use u; pw-long-enough')).toBe('use u; [redacted]');
  });

  it('spec objects: credential-like keys and URL credentials, not look-alike keys such as tokenizer', () => {
    const out = redactSecrets({ target: { base_url: 'http://a:b@h', headers: { Authorization: 'x', 'x-org': 'y' } }, workload: { tokenizer: 'llama3' } });
    expect(out).toEqual({ target: { base_url: 'http://[redacted]@h', headers: { Authorization: '[redacted]', 'x-org': 'y' } }, workload: { tokenizer: 'llama3' } });
  });
});
