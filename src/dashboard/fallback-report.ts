/** A run's page when it has no report.html and no renderer is wired in (tests of the dashboard alone): key figures, escaped, and its files. */
import { basename } from 'node:path';
import { readPartialRun } from '../store/run-bundle.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export function fallbackReport(dir: string): string {
  const id = basename(dir);
  const result = readPartialRun<{ metrics?: { latency?: Record<string, Record<string, number | null>> } }>(dir, { schema: 'ignore' }).result ?? {};
  const rows = Object.entries(result.metrics?.latency ?? {})
    .map(([k, d]) => `<tr><td>${escapeHtml(k)}</td>${['p50', 'p90', 'p99'].map((p) => `<td>${typeof d[p] === 'number' ? d[p].toFixed(2) : '—'}</td>`).join('')}</tr>`)
    .join('');
  const files = ['result.json', 'spec.json', 'records.jsonl'].map((f) => `<a href="/runs/${encodeURIComponent(id)}/files/${f}">${f}</a>`).join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(id)}</title></head>
<body><h1>${escapeHtml(id)}</h1><table><tr><th>latency (ms)</th><th>p50</th><th>p90</th><th>p99</th></tr>${rows}</table><p>${files}</p></body></html>`;
}
