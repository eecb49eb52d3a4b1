/** util/proxy.ts: which proxy the environment names, and the NO_PROXY matcher against a simple oracle. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIRECT, noProxyMatches, proxyRoute, proxySecrets, proxySettingsFromEnv } from '../../src/util/proxy.js';
import { Redactor } from '../../src/util/redact.js';

describe('proxy settings from the environment', () => {
  it('lowercase wins when both spellings are set; uppercase, then ALL_PROXY, otherwise', () => {
    const s = proxySettingsFromEnv({ http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:2', HTTPS_PROXY: 'http://secure:3', ALL_PROXY: 'http://all:4', NO_PROXY: 'a', no_proxy: 'b' });
    expect(s).toEqual({ http: 'http://lower:1', https: 'http://secure:3', noProxy: 'b' });
    expect(proxySettingsFromEnv({ http_proxy: ' ', HTTP_PROXY: 'http://upper:2', all_proxy: 'http://all:4' })).toEqual({ http: 'http://upper:2', https: 'http://all:4', noProxy: '' });
    expect(proxySettingsFromEnv({})).toEqual(DIRECT);
  });

  it('--proxy replaces both schemes (NO_PROXY still applies); --no-proxy is direct', () => {
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'http://env:1', NO_PROXY: 'x' }, 'http://flag:2')).toEqual({ http: 'http://flag:2', https: 'http://flag:2', noProxy: 'x' });
    expect(proxySettingsFromEnv({ HTTPS_PROXY: 'http://env:1' }, false)).toEqual(DIRECT);
  });

  it('routes: scheme-less proxies are http://, port 1080 by default; the label never holds credentials', () => {
    const s = proxySettingsFromEnv({ https_proxy: 'bob:p%40ss@proxy.corp', http_proxy: 'http://[::1]:3128' });
    const r = proxyRoute(new URL('https://api.example.com/v1'), s)!;
    expect(r).toEqual({ host: 'proxy.corp', port: 1080, label: 'http://proxy.corp:1080', authorization: `Basic ${Buffer.from('bob:p@ss').toString('base64')}` });
    expect(proxyRoute(new URL('http://api.example.com/v1'), s)).toEqual({ host: '::1', port: 3128, label: 'http://[::1]:3128', authorization: null });
    expect(proxySecrets(s)).toEqual(expect.arrayContaining(['bob', 'p%40ss', 'p@ss', Buffer.from('bob:p@ss').toString('base64')]));
    // localhost is proxied like any host unless NO_PROXY names it (curl's rule).
    expect(proxyRoute(new URL('http://localhost:8000'), s)).not.toBeNull();
    expect(proxyRoute(new URL('http://localhost:8000'), { ...s, noProxy: 'localhost' })).toBeNull();
  });

  it("the run's redactor knows the proxy's credentials, wherever they appear in text", () => {
    const r = Redactor.forTarget({ proxy: proxySettingsFromEnv({ HTTPS_PROXY: 'http://alice:pr0xy-S3cret@proxy:3128' }) });
    const b64 = Buffer.from('alice:pr0xy-S3cret').toString('base64');
    expect(r.scrub(`upstream said: bad password pr0xy-S3cret (header ${b64})`)).toBe('upstream said: bad password [redacted] (header [redacted])');
    expect(r.scrubKnown(`echo pr0xy-S3cret`)).toBe('echo [redacted]');
  });

  it('NO_PROXY forms: *, suffixes, host:port, IP literals, IPv6, CIDR', () => {
    expect(noProxyMatches('anything.example', 80, ' * ')).toBe(true);
    expect(noProxyMatches('api.example.com', 443, 'example.com')).toBe(true);
    expect(noProxyMatches('api.example.com', 443, '.example.com')).toBe(true);
    expect(noProxyMatches('api.example.com', 443, '*.example.com')).toBe(true);
    expect(noProxyMatches('example.com', 443, '.example.com')).toBe(true);
    expect(noProxyMatches('badexample.com', 443, 'example.com')).toBe(false);
    expect(noProxyMatches('API.Example.COM.', 443, 'example.com')).toBe(true);
    expect(noProxyMatches('host', 8000, 'host:8000')).toBe(true);
    expect(noProxyMatches('host', 8001, 'host:8000')).toBe(false);
    expect(noProxyMatches('127.0.0.1', 80, '0.0.1,0.1')).toBe(false);
    expect(noProxyMatches('127.0.0.1', 80, 'localhost 127.0.0.1')).toBe(true);
    expect(noProxyMatches('[::1]', 80, '::1')).toBe(true);
    expect(noProxyMatches('[::1]', 80, '[::1]:80')).toBe(true);
    expect(noProxyMatches('[::1]', 81, '[::1]:80')).toBe(false);
    expect(noProxyMatches('[0:0::1]', 80, '::1')).toBe(true);
    expect(noProxyMatches('10.1.2.3', 80, '192.168.0.0/16, 10.0.0.0/8')).toBe(true);
    expect(noProxyMatches('11.1.2.3', 80, '10.0.0.0/8')).toBe(false);
    expect(noProxyMatches('[fd00::5]', 80, 'fd00::/8')).toBe(true);
    expect(noProxyMatches('host', 80, '')).toBe(false);
  });
});

/** A domain entry as a structure: the oracle matches on labels, the matcher parses the rendered text. */
interface Entry {
  labels: string[];
  port: number | null;
  prefix: '' | '.' | '*.';
  upper: boolean;
}

function render(e: Entry): string {
  const name = e.labels.join('.');
  return `${e.prefix}${e.upper ? name.toUpperCase() : name}${e.port === null ? '' : `:${e.port}`}`;
}

/** The oracle: the host's labels end with the entry's labels, and the port agrees when given. */
function oracle(hostLabels: string[], port: number, entries: Entry[], star: boolean): boolean {
  if (star) return true;
  return entries.some((e) => (e.port === null || e.port === port) && e.labels.length <= hostLabels.length && e.labels.every((l, i) => hostLabels[hostLabels.length - e.labels.length + i] === l));
}

describe('NO_PROXY matcher against the oracle', () => {
  // Few labels and ports, so matches and near misses are both common.
  const label = fc.constantFrom('a', 'b', 'ab', 'corp', 'com');
  const port = fc.constantFrom(80, 443, 8000);
  const entry = fc.record({ labels: fc.array(label, { minLength: 1, maxLength: 3 }), port: fc.option(port, { nil: null }), prefix: fc.constantFrom('' as const, '.' as const, '*.' as const), upper: fc.boolean() });
  const sep = fc.constantFrom(',', ' ', ', ', ' ,  ', '\t');

  it('agrees on domain names', () => {
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), port, fc.array(entry, { maxLength: 4 }), fc.array(sep, { minLength: 4, maxLength: 4 }), fc.boolean(), (host, p, entries, seps, star) => {
        const list = [...entries.map(render), ...(star ? ['*'] : [])].map((t, i) => `${t}${seps[i % seps.length]}`).join('');
        expect(noProxyMatches(host.join('.'), p, list)).toBe(oracle(host, p, entries, star));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on IPv4 literals (whole-address equality, never a suffix)', () => {
    const octet = fc.constantFrom(0, 1, 10, 27, 127); // 127.x and 27.x, 10.x and 0.x: suffixes of each other
    const ip = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
    fc.assert(
      fc.property(ip, fc.array(fc.tuple(ip, fc.option(port, { nil: null })), { maxLength: 3 }), port, (host, entries, p) => {
        const list = entries.map(([a, q]) => (q === null ? a : `${a}:${q}`)).join(',');
        const expected = entries.some(([a, q]) => a === host && (q === null || q === p));
        expect(noProxyMatches(host, p, list)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});
