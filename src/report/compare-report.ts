/** `infermeter compare` output: a console text, a Markdown table for a pull request. */
import type { FigureComparison, PairComparison } from '../analysis/compare/compare.js';
import type { ShapeItem } from '../analysis/compare/load-shape.js';
import { compareHeadline, levelPct, qualityLines } from './compare-quality.js';
import { environmentRows, environmentSummary } from './environment-table.js';

function table(header: string[], rows: string[][], left = false): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const clip = (s: string, n = 48): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function value(v: number | null, f: FigureComparison): string {
  if (v === null) return '—';
  if (f.figure.id === 'error_rate') return `${(v * 100).toFixed(2)}%`;
  if (f.figure.id === 'cost_per_1m_tokens') return v.toFixed(4);
  return v >= 100 ? v.toFixed(1) : v.toFixed(2);
}

function signed(x: number, f: FigureComparison): string {
  const s = f.figure.delta === 'absolute' ? `${(x * 100).toFixed(2)} pp` : `${(x * 100).toFixed(1)}%`;
  return x > 0 ? `+${s}` : s;
}

export function figureCells(f: FigureComparison): string[] {
  return [
    f.figure.label,
    value(f.a, f),
    value(f.b, f),
    f.delta === null ? '—' : signed(f.delta, f),
    f.ci === null ? '—' : `[${signed(f.ci[0], f)}, ${signed(f.ci[1], f)}]`,
    f.detectable === null ? '—' : `±${f.figure.delta === 'absolute' ? `${(f.detectable * 100).toFixed(2)} pp` : `${(f.detectable * 100).toFixed(1)}%`}`,
    f.verdict + (f.regression ? ' (REGRESSION)' : ''),
  ];
}

export function shapeStatus(i: ShapeItem): string {
  const ks = i.ks ? `D=${i.ks.d.toFixed(3)} p=${i.ks.p_value < 1e-4 ? i.ks.p_value.toExponential(1) : i.ks.p_value.toFixed(3)} ` : '';
  return `${ks}${i.same === null ? 'unknown' : i.same ? 'same' : i.group === 'load' ? 'DIFFERS' : 'differs'}`;
}

/** The family-wise level and its split (docs/compare.md §Family-wise level). */
function familyText(p: PairComparison, k: number): string {
  const m = p.method!;
  if (p.judged && m.accuracy_level !== null) {
    return (
      `${levelPct(m.confidence)} family-wise over ${k} figures and accuracy (weighted Bonferroni: ` +
      `accuracy ${levelPct(m.accuracy_level)}, each figure ${levelPct(m.per_figure_level)})`
    );
  }
  return `${levelPct(m.confidence)} family-wise over ${k} figures (Bonferroni: ${levelPct(m.per_figure_level)} each)`;
}

export function methodLine(p: PairComparison, k: number): string {
  const m = p.method;
  if (!m) return '';
  if ('groups' in p) {
    return (
      `Deltas are B − A over runs (A and B: the runs' geometric means; error rate: their mean, in percentage points). Intervals: t over runs — unit: ${m.resampling_unit}; ` +
      `each run's own noise from ${m.resamples} bootstrap resamples (seed ${m.seed}); ${familyText(p, k)}; changes under ${(m.min_effect * 100).toFixed(1)}% count as no change (docs/compare.md §Repeated runs).`
    );
  }
  return (
    `Deltas are B − A (relative to A; error rate in percentage points). Intervals: bootstrap, ${m.resamples} resamples (seed ${m.seed}); ` +
    `resampling unit: ${m.resampling_unit}; ${familyText(p, k)}; ` +
    `changes under ${(m.min_effect * 100).toFixed(1)}% count as no change.`
  );
}

/** Which figures these runs could not resolve to the threshold, and how many requests per run would. */
function resolveLine(p: PairComparison): string | null {
  const m = p.method;
  const short = p.figures.filter((f) => f.requests_needed !== null);
  if (!m || short.length === 0) return null;
  const threshold = m.fail_on_regression ?? m.min_effect;
  const list = short.map((f) => `${f.figure.label.replace(/ \((ms|req\/s)\)$/, '')} ≈ ${f.requests_needed!.toLocaleString('en-US')}`).join(', ');
  return (
    `Detectable: the smallest change each figure could call significant (the interval's half-width, at least ${(m.min_effect * 100).toFixed(1)}%). ` +
    `To resolve a ±${(threshold * 100).toFixed(1)}% change (${m.fail_on_regression !== null ? '--fail-on-regression' : '--min-effect'}) where none was seen, requests per run at the same load: ${list}.`
  );
}

export function renderCompareText(pairs: readonly PairComparison[]): string {
  const out: string[] = [];
  for (const p of pairs) {
    out.push(`== compare: A = ${p.a}  vs  B = ${p.b} ==`);
    out.push(`B vs A: ${compareHeadline(p)}`);
    out.push('');
    out.push(table(['Load and configuration', 'A', 'B', ''], p.shape.map((i) => [`${i.what}${i.group === 'configuration' ? ' (config)' : i.group === 'outcome' ? ' (outcome)' : ''}`, clip(i.a), clip(i.b), shapeStatus(i)]), true));
    out.push('');
    out.push(p.shapes_differ ? 'Load shape: DIFFERS (items marked DIFFERS above).' : 'Load shape: the same (configuration differences are what is being compared).');
    out.push('');
    if (!p.environment.missing) out.push(table(['Environment', 'A', 'B', ''], environmentRows(p.environment, false).map(([f, a, b, st]) => [f!, clip(a!), clip(b!), st!]), true), '');
    out.push(environmentSummary(p.environment, p.judged), '');
    out.push(table(['Figure', 'A', 'B', 'change', 'interval', 'detectable', 'verdict'], p.figures.map(figureCells)));
    const judged = p.figures.filter((f) => f.ci !== null).length;
    if (p.method) out.push('', methodLine(p, judged));
    const more = resolveLine(p);
    if (more) out.push('', more);
    if (p.note) out.push('', `Note: ${p.note}.`);
    const worse = p.figures.filter((f) => f.verdict === 'worse').map((f) => f.figure.label);
    const better = p.figures.filter((f) => f.verdict === 'better').map((f) => f.figure.label);
    if (p.quality) out.push('', ...qualityLines(p.quality));
    if (p.judged) out.push('', `Verdict: ${worse.length === 0 && better.length === 0 ? 'no significant change' : [better.length ? `better: ${better.join(', ')}` : '', worse.length ? `worse: ${worse.join(', ')}` : ''].filter(Boolean).join('; ')}`);
    out.push('');
  }
  return out.join('\n').trimEnd();
}

const md = (s: string): string => s.replace(/\|/g, '\\|');

export function renderCompareMarkdown(pairs: readonly PairComparison[]): string {
  const out: string[] = [];
  for (const p of pairs) {
    out.push(`### infermeter compare: \`${md(p.a)}\` → \`${md(p.b)}\``, '');
    out.push(`**${md(compareHeadline(p))}**`, '');
    const differing = p.shape.filter((i) => i.same === false);
    out.push(differing.length === 0 ? 'Load and configuration: identical.' : `Differences: ${differing.map((i) => `${md(i.what)} (${md(clip(i.a, 30))} → ${md(clip(i.b, 30))})`).join('; ')}.`);
    if (p.shapes_differ) out.push('', '**The load shapes differ.**');
    out.push('', md(environmentSummary(p.environment, p.judged)));
    const envRows = p.environment.fields.filter((f) => f.status !== 'same');
    if (envRows.length > 0) {
      out.push('', '| environment | A | B | |', '|---|---|---|---|');
      for (const r of environmentRows(p.environment, false).filter((_, i, all) => all[i]![3] !== 'same')) out.push(`| ${r.map((c) => md(clip(c, 40))).join(' | ')} |`);
    }
    out.push('', '| figure | A | B | change | interval | detectable | verdict |', '|---|---:|---:|---:|---|---:|---|');
    for (const f of p.figures) {
      const c = figureCells(f).map(md);
      if (f.verdict === 'worse') c[6] = `**${c[6]}**`;
      out.push(`| ${c.join(' | ')} |`);
    }
    const judged = p.figures.filter((f) => f.ci !== null).length;
    if (p.method) out.push('', md(methodLine(p, judged)));
    const more = resolveLine(p);
    if (more) out.push('', md(more));
    if (p.note) out.push('', `_${md(p.note)}._`);
    if (p.quality) out.push('', ...qualityLines(p.quality).map((l) => md(l.trim())).map((l) => `- ${l}`));
    out.push('');
  }
  return out.join('\n').trimEnd();
}
