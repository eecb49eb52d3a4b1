/**
 * Exports of a sweep directory (sweep.json, docs/sweep-schema.md): the per-stage figures as
 * `figure,value` rows (stages.<n>.…, n 1-based as the CLI prints stages) and a Markdown
 * summary — the curve's findings and the stage table. The records (every stage's, each with
 * its `stage`) go through the run exports unchanged.
 */
import { stringify } from 'csv-stringify/sync';
import { stageName, type SweepDoc } from '../report/html/sweep-report.js';
import { flatten } from './csv-export.js';
import { mdTable, mdText } from './markdown-table.js';

const fmt = (v: number | null | undefined, d = 2): string => (v === null || v === undefined ? '—' : v.toFixed(d));
const loadText = (l: SweepDoc['stages'][number]['load']): string => (l.kind === 'concurrency' ? `concurrency ${l.concurrency}` : l.rate === 'inf' ? 'all at once' : `${l.rate} req/s`);

export function sweepSummaryCsv(doc: SweepDoc): string {
  const stages: Record<string, unknown> = {};
  for (const s of doc.stages) stages[String(s.index + 1)] = { role: s.role, load: s.load, metrics: s.metrics, slos_pass: s.slos_pass, stopped_early: s.stopped_early };
  const rows = flatten({ sweep: doc.sweep, target: doc.target, slos: doc.slos, pass: doc.pass, analysis: doc.analysis, stages });
  return stringify(rows, { header: true, columns: ['figure', 'value'] });
}

export function sweepMarkdown(doc: SweepDoc): string {
  const out: string[] = [`# infermeter sweep: ${mdText(doc.target.model ?? '')}`, ''];
  out.push(`Sweep \`${mdText(doc.sweep.id ?? doc.sweep.name)}\` · ${mdText(doc.sweep.mode)} · started ${mdText(doc.sweep.started_at)} · ${doc.stages.length} stage${doc.stages.length === 1 ? '' : 's'}`);
  if (doc.slos.length) out.push('', `**SLOs ${doc.pass ? 'held' : 'did not all hold'}**: ${doc.slos.map(mdText).join('; ')}`);
  out.push('');
  for (const k of ['saturation', 'knee', 'degradation'] as const) {
    const f = doc.analysis?.[k];
    out.push(`- **${k}**: ${f ? `${f.load === null ? stageName(f.index) : `${mdText(f.load)} (${stageName(f.index)})`} — ${mdText(f.reason)}` : 'not found in the loads run'}`);
  }
  const byIndex = new Map(doc.stages.map((s) => [s.index, s]));
  const ordered = (doc.analysis?.order ?? doc.stages.map((s) => s.index)).map((i) => byIndex.get(i)).filter((s) => s !== undefined);
  out.push(
    '',
    mdTable(
      ['Stage', 'load', 'requests', 'req/s', 'out tok/s', 'TTFT p50 (ms)', 'TTFT p99 (ms)', 'TPOT p50 (ms)', 'TPOT p99 (ms)', 'failed', 'SLOs'],
      ordered.map((s) => [
        stageName(s.index),
        loadText(s.load),
        String(s.metrics.requests.total),
        fmt(s.metrics.throughput.request_per_s, 3),
        fmt(s.metrics.throughput.output_tokens_per_s, 1),
        fmt(s.metrics.latency.ttft_ms.p50),
        fmt(s.metrics.latency.ttft_ms.p99),
        fmt(s.metrics.latency.tpot_ms.p50),
        fmt(s.metrics.latency.tpot_ms.p99),
        `${fmt((s.metrics.requests.failure_rate ?? 0) * 100)} %`,
        s.slos_pass === null ? '—' : s.slos_pass ? 'pass' : 'fail',
      ]),
    ),
  );
  return `${out.join('\n')}\n`;
}
