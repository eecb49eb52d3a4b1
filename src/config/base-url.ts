/**
 * `--base-url` as users write it: the server root (`http://host:8000`), or the OpenAI SDK's habit
 * of the API root (`http://host:8000/v1`), with or without a trailing slash. Normalized once, so
 * every URL built from it (the endpoint, /v1/models, /tokenize) has one `/v1` and no `//`.
 */

export interface NormalizedTarget {
  /** The server root: no trailing slash, no trailing `/v1`; user info and query kept. */
  baseUrl: string;
  /** The API path, starting with `/v1/` when the base URL ended with `/v1`. */
  endpoint: string;
}

export function normalizeBaseUrl(baseUrl: string, endpoint: string): NormalizedTarget {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return { baseUrl, endpoint };
  }
  let path = u.pathname.replace(/\/+$/, '');
  let ep = endpoint;
  if (/\/v1$/i.test(path)) {
    path = path.slice(0, -3);
    if (!/^\/v1(\/|$)/i.test(ep)) ep = `/v1${ep.startsWith('/') ? '' : '/'}${ep}`;
  }
  const userinfo = u.username || u.password ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  return { baseUrl: `${u.protocol}//${userinfo}${u.host}${path}${u.search}${u.hash}`, endpoint: ep };
}
