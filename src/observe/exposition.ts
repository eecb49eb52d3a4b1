/**
 * Parser for the Prometheus text exposition format (version 0.0.4), the format every inference
 * engine's /metrics speaks. Written here, not taken from npm: the parser on npm
 * (parse-prometheus-text-format 1.1.1) merges every labelled series of a histogram into one and
 * drops its _sum and _count, which loses exactly what we read (per-model histograms); see
 * docs/ARCHITECTURE.md. test/observe/exposition.test.ts checks this parser against prom-client's
 * writer on random metric sets.
 *
 * Invariants: a sample's `name` is the line's metric name as written (with _bucket/_sum/_count/
 * _total suffixes); `family` is the name declared by the nearest preceding # TYPE whose name is a
 * prefix of it (else the sample's own name); label values are unescaped (\\, \", \n); values
 * parse with Go's float syntax (NaN, +Inf, -Inf). Malformed lines are counted, never thrown.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  /** The metric family (from # TYPE) this sample belongs to. */
  family: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Declared type per family name. */
  types: Map<string, MetricType>;
  /** Lines that could not be parsed (skipped). */
  malformed: number;
}

const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

function parseValue(text: string): number {
  switch (text) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return text === '' ? NaN : Number(text);
  }
}

/** Reads `{a="x",b="y"}` starting at text[i] === '{'; returns the labels and the index after '}'. */
function parseLabels(text: string, i: number): { labels: Record<string, string>; end: number } | null {
  const labels: Record<string, string> = {};
  i++; // '{'
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) return null;
    const key = text.slice(i, eq).trim();
    i = eq + 1;
    while (text[i] === ' ') i++;
    if (text[i] !== '"') return null;
    i++;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) return null;
      if (c === '"') break;
      if (c === '\\') {
        const n = text[i + 1];
        value += n === 'n' ? '\n' : (n ?? '');
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[key] = value;
    i++; // closing quote
  }
}

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, MetricType>();
  let malformed = 0;
  let lastTyped: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (m) {
        const t = (m[2] as string).toLowerCase();
        types.set(m[1] as string, (['counter', 'gauge', 'histogram', 'summary'].includes(t) ? t : 'untyped') as MetricType);
        lastTyped = m[1] as string;
      }
      continue;
    }
    let i = 0;
    while (i < line.length && line[i] !== '{' && line[i] !== ' ' && line[i] !== '\t') i++;
    const name = line.slice(0, i);
    let labels: Record<string, string> = {};
    if (line[i] === '{') {
      const parsed = parseLabels(line, i);
      if (!parsed) {
        malformed++;
        continue;
      }
      labels = parsed.labels;
      i = parsed.end;
    }
    const rest = line.slice(i).trim().split(/\s+/);
    const value = parseValue(rest[0] ?? '');
    if (name === '' || (Number.isNaN(value) && rest[0] !== 'NaN')) {
      malformed++;
      continue;
    }
    samples.push({ name, family: familyOf(name, lastTyped, types), labels, value });
  }
  return { samples, types, malformed };
}

function familyOf(name: string, lastTyped: string | null, types: Map<string, MetricType>): string {
  if (types.has(name)) return name;
  if (lastTyped !== null && name.startsWith(lastTyped)) return lastTyped;
  for (const s of SUFFIXES) if (name.endsWith(s) && types.has(name.slice(0, -s.length))) return name.slice(0, -s.length);
  return name;
}
