/**
 * The one headline of a compared pair, derived from its verdict table so it can never contradict
 * it: which figures got significantly worse or better, the biggest of those changes, and whether
 * B is faster or slower — said of latency figures always, of throughput only where throughput is
 * a result (a closed loop, or an open loop at saturation), never where it only echoes the
 * offered rate (an open loop below saturation). The load regime is named (docs/compare.md §Headline).
 */
import type { ShapeSource } from './load-shape.js';
import type { KeyFigure } from './key-figures.js';

/** Where throughput is a result of the server's speed, and where it is the offered load. */
export type LoadRegime = 'closed loop' | 'open loop at saturation' | 'open loop below saturation' | 'unknown';

/** Achieved below this share of the offered rate: the server could not keep up (saturation). */
export const SATURATION_SHARE = 0.9;

const THROUGHPUT_IDS = new Set(['request_throughput', 'output_throughput', 'total_token_throughput']);
const LATENCY_PREFIXES = ['ttft_', 'tpot_', 'itl_', 'e2el_'];

export interface HeadlineFigure {
  figure: KeyFigure;
  delta: number | null;
  verdict: string;
}

export interface Headline {
  text: string;
  regime: LoadRegime;
  /** 'faster' | 'slower' | 'mixed' over the speed figures with a significant verdict; null when none. */
  speed: 'faster' | 'slower' | 'mixed' | null;
  worse: string[];
  better: string[];
  biggest: { figure: string; delta: number } | null;
}

function regimeOf(load: Record<string, unknown> | null, achieved: number | null): LoadRegime | null {
  if (!load) return null;
  if (load.mode === 'closed' || typeof load.concurrency === 'number') return 'closed loop';
  const rate = load.request_rate;
  if (rate === 'inf' || rate === null || rate === Infinity) return load.mode === 'trace' ? null : 'open loop at saturation';
  if (typeof rate !== 'number' || achieved === null) return null;
  return achieved < SATURATION_SHARE * rate ? 'open loop at saturation' : 'open loop below saturation';
}

/** The pair's regime: saturated when either side is (its throughput is then a result too). */
export function loadRegime(a: ShapeSource, b: ShapeSource, achievedA: number | null, achievedB: number | null): LoadRegime {
  const ra = regimeOf(a.load, achievedA);
  const rb = regimeOf(b.load, achievedB);
  if (ra === null || rb === null) return 'unknown';
  if (ra === 'closed loop' || rb === 'closed loop') return ra === rb ? ra : 'unknown';
  return ra === 'open loop at saturation' || rb === 'open loop at saturation' ? 'open loop at saturation' : 'open loop below saturation';
}

const isLatency = (f: KeyFigure): boolean => LATENCY_PREFIXES.some((p) => f.id.startsWith(p));
const isSpeed = (f: KeyFigure, regime: LoadRegime): boolean => isLatency(f) || (THROUGHPUT_IDS.has(f.id) && (regime === 'closed loop' || regime === 'open loop at saturation'));
const name = (f: KeyFigure): string => f.label.replace(/ \((ms|req\/s)\)$/, '');

export function signedChange(f: KeyFigure, delta: number): string {
  const s = f.delta === 'absolute' ? `${(Math.abs(delta) * 100).toFixed(2)} pp` : `${(Math.abs(delta) * 100).toFixed(1)}%`;
  return `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${s}`;
}

function regimeNote(regime: LoadRegime, offered: unknown): string {
  switch (regime) {
    case 'closed loop':
      return 'closed loop: throughput is a result, judged as speed';
    case 'open loop at saturation':
      return 'open loop at saturation: throughput is a result, judged as speed';
    case 'open loop below saturation':
      return `open loop below saturation${typeof offered === 'number' ? ` (${offered} req/s offered)` : ''}: throughput follows the offered rate, so it is not judged as speed`;
    default:
      return 'load regime unknown: speed judged from latency only';
  }
}

/**
 * `judged`: the pair got verdicts. Without them the headline says so and names no change.
 * `offered`: A's request rate, for the regime note.
 */
export function buildHeadline(figures: readonly HeadlineFigure[], o: { judged: boolean; regime: LoadRegime; offered: unknown; note: string | null }): Headline {
  const worse = figures.filter((f) => f.verdict === 'worse');
  const better = figures.filter((f) => f.verdict === 'better');
  const base = { regime: o.regime, worse: worse.map((f) => f.figure.label), better: better.map((f) => f.figure.label) };
  if (!o.judged) return { ...base, text: `no verdict (${o.note ?? 'not judged'})`, speed: null, biggest: null };
  // The biggest change among relative figures (an absolute one, error rate, is not on their scale).
  const changed = [...worse, ...better].filter((f) => f.delta !== null && f.figure.delta === 'relative');
  const top = changed.sort((x, y) => Math.abs(y.delta!) - Math.abs(x.delta!))[0] ?? null;
  const speedWorse = worse.filter((f) => isSpeed(f.figure, o.regime)).length;
  const speedBetter = better.filter((f) => isSpeed(f.figure, o.regime)).length;
  const speed = speedWorse > 0 && speedBetter > 0 ? 'mixed' : speedWorse > 0 ? 'slower' : speedBetter > 0 ? 'faster' : null;
  const parts: string[] = [];
  if (worse.length === 0 && better.length === 0) parts.push('no significant change in any figure');
  else {
    const lead = speed === 'mixed' ? 'mixed speed' : speed;
    const list = (fs: HeadlineFigure[]) => fs.map((f) => name(f.figure)).join(', ');
    const lists = [worse.length ? `worse: ${list(worse)}` : '', better.length ? `better: ${list(better)}` : ''].filter(Boolean).join('; ');
    parts.push(lead ? `${lead} — ${lists}` : lists);
    if (top) parts.push(`biggest change: ${name(top.figure)} ${signedChange(top.figure, top.delta!)}`);
  }
  parts.push(regimeNote(o.regime, o.offered));
  return { ...base, text: parts.join('; '), speed, biggest: top ? { figure: top.figure.label, delta: top.delta! } : null };
}
