/**
 * multipart/form-data (RFC 7578) as the simulator reads a transcription request: the boundary
 * from the Content-Type, then each part's Content-Disposition name (and filename), Content-Type
 * and bytes. Strict where a server must be (a missing boundary, a part without a name, a body
 * that never closes are errors); a preamble before the first delimiter and an epilogue after the
 * last are skipped, as RFC 2046 says.
 */

export interface FormPart {
  name: string;
  /** Present for a file part. */
  filename: string | null;
  contentType: string | null;
  bytes: Buffer;
}

export class MultipartError extends Error {}

/** The boundary of a `multipart/form-data; boundary=…` content type; null when it is not one. */
export function formBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');

/** A header's parameter (`name="file"`); quoted strings with `\"` escapes or percent-encoded `%22` both read. */
function param(header: string, key: string): string | null {
  const m = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (!m) return null;
  if (m[1] !== undefined) return m[1].replace(/\\(.)/g, '$1').replace(/%22/g, '"').replace(/%0D/g, '\r').replace(/%0A/g, '\n');
  return m[2] ?? null;
}

/**
 * The parts of a multipart/form-data body.
 * @throws MultipartError in one line naming what is wrong
 */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delim = Buffer.from(`--${boundary}`, 'latin1');
  const next = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let at = body.indexOf(delim);
  if (at < 0) throw new MultipartError('the body holds no part delimited by the boundary of its Content-Type');
  at += delim.length;
  const parts: FormPart[] = [];
  for (;;) {
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts; // `--boundary--`: the end
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) throw new MultipartError('a boundary delimiter is not followed by CRLF');
    at += 2;
    const headEnd = body.indexOf(CRLF2, at);
    if (headEnd < 0) throw new MultipartError('a part has no end to its headers (CRLF CRLF)');
    const headers = body.toString('utf8', at, headEnd).split('\r\n');
    const end = body.indexOf(next, headEnd + 4);
    if (end < 0) throw new MultipartError('the body ends inside a part (no closing boundary)');
    let disposition: string | null = null;
    let contentType: string | null = null;
    for (const h of headers) {
      const colon = h.indexOf(':');
      if (colon < 0) throw new MultipartError(`a part header is not "name: value": ${JSON.stringify(h.slice(0, 60))}`);
      const key = h.slice(0, colon).trim().toLowerCase();
      const value = h.slice(colon + 1).trim();
      if (key === 'content-disposition') disposition = value;
      else if (key === 'content-type') contentType = value;
    }
    if (disposition === null || !/^form-data\s*(;|$)/i.test(disposition)) throw new MultipartError('a part has no Content-Disposition: form-data header');
    const name = param(disposition, 'name');
    if (name === null || name === '') throw new MultipartError('a part has no name in its Content-Disposition');
    parts.push({ name, filename: param(disposition, 'filename'), contentType, bytes: body.subarray(headEnd + 4, end) });
    at = end + next.length;
  }
}
