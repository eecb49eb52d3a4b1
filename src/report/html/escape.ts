/**
 * Escaping for the HTML report. Everything that came from a server, a dataset or a spec
 * (model names, error messages, outputs, task labels) passes through one of these before it
 * reaches the page.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * JSON to place inside `<script type="application/json">`. Every `<`, `>` and `&` becomes a
 * \u escape, so no `</script`, `<!--` or `<script` sequence can appear in the element's text
 * (which the HTML parser would act on before JSON.parse sees it); U+2028/U+2029 are escaped too.
 * JSON.parse gives back exactly the original value.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JavaScript source to inline in a `<script>` element: `</script` (any case) cannot end the
 * element early. In a string or regex literal `<\/` means `</`; the vendored runtime is checked
 * to contain no such sequence where that would not hold (test/report/escape.test.ts).
 */
export function scriptSource(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}
