/**
 * The one owner of secret redaction. Nothing infermeter writes or prints (spec.json, result.json,
 * records.jsonl, summaries, error lines) may hold a credential:
 * - URLs lose their user info and the values of credential-like query parameters (`redactUrl`);
 * - objects lose the values under credential-like keys (`redactSecrets`, for spec.json);
 * - free text (a server's error body, which often echoes the key it refused) loses every secret
 *   value the run was configured with (`Redactor`);
 * - a server's answer text (kept with --keep-text or for a quality check) loses the same values
 *   when the record is completed, once per request, so records.jsonl and everything read from it
 *   (exports, report.html, the dashboard, `sql`) never holds them (`Redactor.scrubKnown`).
 */

import { proxySecrets, type ProxySettings } from './proxy.js';

export const REDACTED = '[redacted]';

/** A header or query-parameter name whose value is a credential. */
const SENSITIVE_NAME = /auth|key|token|secret|passw|cookie|session|signature|credential|^sig$/i;

/** Object keys (spec.json) whose values are credentials; anchored, so `tokenizer` is kept. */
const SECRET_KEY = /^(authorization|proxy-authorization|x-api-key|api[-_]?key|cookie|token|access[-_]?token|secret|password)$/i;

export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAME.test(name);
}

/** The URL with user info replaced and credential-like query values replaced; non-URLs unchanged. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.username && !u.password && ![...u.searchParams.keys()].some(isSensitiveName)) return url;
  const user = u.username || u.password ? `${REDACTED}@` : '';
  let search = '';
  if (u.search) {
    const parts: string[] = [];
    for (const [k, v] of u.searchParams) parts.push(`${encodeURIComponent(k)}=${isSensitiveName(k) ? REDACTED : encodeURIComponent(v)}`);
    search = `?${parts.join('&')}`;
  }
  const path = u.pathname === '/' && !url.replace(/[?#].*$/, '').endsWith('/') ? '' : u.pathname;
  return `${u.protocol}//${user}${u.host}${path}${search}${u.hash}`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** Every URL inside `text` passed through redactUrl. */
export function redactUrlsIn(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, (m) => redactUrl(m)) : text;
}

/** A deep copy with credential-like keys' values replaced and URLs in strings redacted. */
export function redactSecrets<T>(value: T): T {
  if (typeof value === 'string') return redactUrlsIn(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redactSecrets(v);
    return out as T;
  }
  return value;
}

/** Where a run's secrets come from. */
export interface SecretSources {
  baseUrl?: string | null;
  apiKey?: string | null;
  headers?: Record<string, string>;
  /** HTTP(S)_PROXY / --proxy: the user info of a proxy URL. */
  proxy?: ProxySettings | null;
}

/** Every secret value of a target: the API key, sensitive header values, URL credentials. */
export function secretValues(s: SecretSources): string[] {
  const out: string[] = [];
  if (s.apiKey) out.push(s.apiKey);
  for (const [name, value] of Object.entries(s.headers ?? {})) {
    if (!isSensitiveName(name) || !value) continue;
    out.push(value);
    // "Bearer abc" / "Basic abc": the credential alone may be echoed too.
    const m = /^\s*\S+\s+(\S+)\s*$/.exec(value);
    if (m) out.push(m[1]!);
  }
  if (s.baseUrl) {
    try {
      const u = new URL(s.baseUrl);
      for (const raw of [u.username, u.password]) {
        if (!raw) continue;
        out.push(raw, safeDecode(raw));
      }
      if (u.username || u.password) out.push(basicCredentials(u));
      for (const [k, v] of u.searchParams) if (isSensitiveName(k) && v) out.push(v, encodeURIComponent(v));
    } catch {
      // not a URL: nothing to take from it
    }
  }
  out.push(...proxySecrets(s.proxy));
  return out;
}

/** The value of an `Authorization: Basic` header for a URL's user info. */
export function basicCredentials(u: URL): string {
  return Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString('base64');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Removes a run's configured secret values (and URL credentials) from text before it is written or printed. */
/**
 * The shortest secret value taken out of a server's answer text. Shorter ones (a URL's user name
 * `u`, a session header's `42`) would take every such word out of the answers, and the quality
 * checks read them; a credential that short protects nothing, and the user info of a URL travels
 * only inside the (longer) Basic value.
 */
export const MIN_ANSWER_SECRET = 8;

export class Redactor {
  private readonly secrets: string[];
  private readonly answerSecrets: string[];

  constructor(values: Iterable<string | null | undefined>) {
    const set = new Set<string>();
    for (const v of values) {
      if (!v) continue;
      set.add(v);
      const json = JSON.stringify(v).slice(1, -1); // as it appears inside a JSON string
      if (json !== v) set.add(json);
    }
    // Longest first, so a secret containing another is removed whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
    this.answerSecrets = this.secrets.filter((v) => v.length >= MIN_ANSWER_SECRET);
  }

  static forTarget(s: SecretSources): Redactor {
    return new Redactor(secretValues(s));
  }

  scrub(text: string): string {
    return redactUrlsIn(replaceAll(text, this.secrets));
  }

  /**
   * Only the run's own secret values replaced: for a server's answer text (a server that echoes the
   * request's Authorization, X-Api-Key or URL query as content). Unlike `scrub`, URLs in the text
   * keep their query values, so an answer's links stay whole for the quality checks that read them.
   */
  scrubKnown(text: string): string {
    return replaceAll(text, this.answerSecrets);
  }

  /** Whether the run has no secret value to take out of answer text (then it is kept as it came). */
  get empty(): boolean {
    return this.answerSecrets.length === 0;
  }

  /** A deep copy of `value` with every string scrubbed and credential-like keys redacted. */
  scrubDeep<T>(value: T): T {
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.scrub(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) out[k] = SECRET_KEY.test(k) ? REDACTED : walk(x);
        return out;
      }
      return v;
    };
    return walk(value) as T;
  }
}

/** `text` with every one of `secrets` (longest first) replaced by REDACTED. */
function replaceAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
