/**
 * One check of a page at one viewport width, shared by the report and dashboard browser tests:
 * console errors and warnings, page errors, every request made, horizontal page scroll, and
 * elements that stick out of the viewport (unless a scroll box of their own clips them).
 * Screenshots go under artifacts/screenshots/ and their paths are printed for a person to open.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { Browser } from '../helpers/browser.js';

export const WIDTHS = [375, 1440] as const;
export const SCREENSHOT_DIR = join('artifacts', 'screenshots');

export interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
}

/** A new page at `width` px that records problems and requests; with `onlyUrl`, every other request is refused. */
export async function openAt(browser: Browser, width: number, opts: { onlyUrl?: string } = {}): Promise<Opened> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('request', (r) => requests.push(r.url()));
  if (opts.onlyUrl) {
    const only = opts.onlyUrl;
    await page.route('**/*', (route) => (route.request().url() === only ? route.continue() : route.abort()));
  }
  return { page, problems, requests };
}

export interface Layout {
  scrollWidth: number;
  viewport: number;
  /** Elements whose right edge is past the viewport and that no scrolling ancestor clips. */
  overflowing: string[];
}

export async function layoutOf(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    // The page's DOM, typed by what is read here (the tests' tsconfig has no DOM library).
    interface El {
      tagName: string;
      id: string;
      className: unknown;
      parentElement: El | null;
      getBoundingClientRect(): { right: number; width: number };
    }
    const doc = (globalThis as unknown as { document: { documentElement: { clientWidth: number; scrollWidth: number }; body: El & { querySelectorAll(q: string): Iterable<El> } } }).document;
    const win = globalThis as unknown as { getComputedStyle(el: El): { overflowX: string } };
    const vw = doc.documentElement.clientWidth;
    const overflowing: string[] = [];
    for (const el of doc.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= vw + 1) continue;
      let clipped = false;
      for (let a = el.parentElement; a && a !== doc.body; a = a.parentElement) {
        const ox = win.getComputedStyle(a).overflowX;
        if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden') && a.getBoundingClientRect().right <= vw + 1) {
          clipped = true;
          break;
        }
      }
      if (!clipped) overflowing.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.split(' ').join('.')}` : ''} right=${Math.round(r.right)}`);
    }
    return { scrollWidth: doc.documentElement.scrollWidth, viewport: vw, overflowing: overflowing.slice(0, 10) };
  });
}

/** Writes a screenshot (the first screen, or the full page) and prints its path; with INFERMETER_DOCS_IMG=1 also copies it to docs/img/. */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean; docs?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: opts.fullPage ?? false });
  console.log(`screenshot: ${resolve(path)}`);
  if (opts.docs && process.env.INFERMETER_DOCS_IMG === '1') {
    mkdirSync(join('docs', 'img'), { recursive: true });
    copyFileSync(path, join('docs', 'img', `${name}.png`));
  }
  return path;
}
