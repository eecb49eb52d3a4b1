import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, jsonForScript, scriptSource } from '../../src/report/html/escape.js';
import { vegaRuntimeSource } from '../../src/report/html/page.js';

describe('report escaping', () => {
  it('escapes markup in text', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;');
  });

  it('JSON for a script element parses back to the same value and holds no markup (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (v, s) => {
        const value = { v, s: `${s}</script><!--<script>` };
        const text = jsonForScript(value);
        expect(text).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('inline script source cannot close its element', () => {
    expect(scriptSource('var a = "</script><!--";')).toBe('var a = "<\\/script><\\!--";');
    expect(scriptSource('x="</SCRIPT>"')).toBe('x="<\\/SCRIPT>"');
  });

  it('the vendored Vega runtime has nothing the inlining would need to rewrite', () => {
    const js = vegaRuntimeSource();
    expect(js.length).toBeGreaterThan(100_000);
    expect(js).not.toMatch(/<\/script|<!--/i);
  });
});
