/**
 * `infermeter compare --html FILE`: the comparison as one self-contained page — the headline,
 * the runs' distributions overlaid (CDFs of TTFT, TPOT, ITL, E2EL), the delta table with its
 * intervals, the load-shape check, and the two runs' environment fingerprints side by side.
 * The verdicts and texts are compare's own (analysis/compare, compare-report.ts); this page
 * only lays them out.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PairComparison } from '../../analysis/compare/compare.js';
import { readRunBundle, type RunBundle } from '../../store/run-bundle.js';
import type { RunResult } from '../result-json.js';
import { runDistributions } from '../data/distributions.js';
import { sloRules } from '../data/slo-rules.js';
import { SLO_RULES, type Datasets } from '../charts/chart.js';
import { overlaidCdfCharts, overlaidCdfDatasets, type OverlayGroup } from '../charts/overlay-charts.js';
import type { SloRule } from '../data/slo-rules.js';
import { compareHeadline } from '../compare-quality.js';
import { figureCells, methodLine, shapeStatus } from '../compare-report.js';
import { environmentRows, environmentSummary } from '../environment-table.js';
import { escapeHtml as e } from './escape.js';
import { renderPage, type PageSection } from './page.js';
import { htmlTable } from './tables.js';

export interface CompareRun {
  /** The path as given on the command line. */
  path: string;
  /** The run's distributions (measure phase, ok); null for a vLLM result file (figures only). */
  dists: OverlayGroup['dists'] | null;
}

const letter = (i: number): string => String.fromCharCode(65 + i);

function pairHtml(p: PairComparison, idx: number, many: boolean): string {
  const headline = compareHeadline(p);
  const verdictClass = !p.judged ? 'unknown' : p.figures.some((f) => f.verdict === 'worse') ? 'bad' : 'ok';
  const worse = p.figures.filter((f) => f.verdict === 'worse').map((f) => f.figure.label);
  const better = p.figures.filter((f) => f.verdict === 'better').map((f) => f.figure.label);
  const verdict = !p.judged
    ? (p.note ?? 'no verdict: a side has no per-request data')
    : worse.length === 0 && better.length === 0
      ? 'No significant change'
      : [better.length ? `better: ${better.join(', ')}` : '', worse.length ? `worse: ${worse.join(', ')}` : ''].filter(Boolean).join('; ');
  const figures = htmlTable(['Figure', 'A', 'B', 'change', 'interval', 'verdict'], p.figures.map(figureCells));
  const shape = htmlTable(
    ['Load and configuration', 'A', 'B', 'check'],
    p.shape.map((i) => [`${i.what}${i.group === 'configuration' ? ' (config)' : ''}`, i.a, i.b, shapeStatus(i)]),
    { numeric: false },
  );
  const judgedN = p.figures.filter((f) => f.ci !== null).length;
  return `${many ? `<h3>Pair ${idx + 1}: A = ${e(p.a)} vs. B = ${e(p.b)}</h3>` : ''}<div class="verdict ${verdictClass}" data-verdict="${verdictClass}"><strong>B vs. A: ${e(headline ?? verdict)}</strong>${headline ? `<p>${e(verdict)}</p>` : ''}</div>
<h3>What changed</h3>${figures}${p.method ? `<p class="note">${e(methodLine(p, judgedN))}</p>` : ''}
<h3>Same load?</h3><p>${p.shapes_differ ? '<strong>The load shapes differ</strong> (rows marked DIFFERS): the deltas compare different experiments.' : 'The load shapes are the same; configuration differences are what is being compared.'}</p>${shape}
<h3>Same environment?</h3><p>${e(environmentSummary(p.environment, p.judged))}</p>${p.environment.missing ? '' : htmlTable(['Environment', 'A', 'B', 'check'], environmentRows(p.environment, true), { numeric: false })}`;
}

export function buildCompareReport(pairs: readonly PairComparison[], runs: readonly CompareRun[], rules: readonly SloRule[], generator: string): Promise<string> {
  const groups: OverlayGroup[] = runs.filter((r) => r.dists !== null).map((r) => ({ name: `${letter(runs.indexOf(r))}: ${basename(r.path.replace(/\/result\.json$/, ''))}`, dists: r.dists! }));
  const datasets: Datasets = { ...overlaidCdfDatasets(groups), [SLO_RULES]: [...rules] };
  const charts = overlaidCdfCharts(groups, 'run', (m) => `Each run’s ${m === 'itl_ms' ? 'gaps between chunks' : 'requests'} (measure phase, ok). A curve to the right is slower at that share of requests; the gap between curves at 50 % and at 99 % is the change in p50 and p99.`);
  const sections: PageSection[] = [
    { id: 'verdict', title: 'At a glance', html: pairs.map((p, i) => pairHtml(p, i, pairs.length > 1)).join(''), charts: [] },
    {
      id: 'distributions',
      title: 'Distributions overlaid',
      html: charts.length ? '' : '<p class="note">No run directory among the inputs (vLLM result files hold figures only), so no distribution is drawn.</p>',
      charts,
    },
  ];
  const facts: Array<[string, string]> = runs.map((r, i) => [letter(i), r.path]);
  return renderPage({ title: `infermeter compare: ${runs.map((r) => r.path).join(' vs. ')}`, facts, sections, datasets, generator });
}

/**
 * What the page needs of one compare input: a run directory's distributions, from the bundle
 * compare already read (`read`; read here only when none is given); a sweep
 * directory or a vLLM result file draws no distribution.
 */
export function loadCompareRun(path: string, read?: RunBundle<Partial<RunResult>>): CompareRun & { rules: SloRule[] } {
  const dir = path.replace(/\/result\.json$/, '');
  if (!read && (!existsSync(join(dir, 'result.json')) || !existsSync(join(dir, 'records.jsonl')) || !statSync(dir).isDirectory())) return { path, dists: null, rules: [] };
  const { result, records } = read ?? readRunBundle<RunResult>(dir, { records: 'required' });
  return {
    path,
    dists: runDistributions(records),
    rules: sloRules(result.slos, result.metrics?.goodput?.slos ?? []),
  };
}
