/** The one way a request URL is built from the base URL and an API path. */

/**
 * `path` (e.g. `/v1/completions`) under the base URL's path; the base URL's query (an API key
 * some gateways take as `?key=`) is kept unless the path brings its own.
 */
export function endpointUrl(baseUrl: string, path: string): URL {
  const root = new URL(baseUrl);
  const search = root.search;
  root.search = '';
  root.hash = '';
  const dir = root.href.endsWith('/') ? root.href : `${root.href}/`;
  const url = new URL(path.replace(/^\/+/, ''), dir);
  if (!url.search && search) url.search = search;
  return url;
}
