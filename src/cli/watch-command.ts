/**
 * `infermeter watch`: observe a live service from its metrics alone (no load sent): a live
 * table of the normalized series over a rolling window, refreshed every interval; one line per
 * refresh when stdout is not a terminal, JSON lines with --json. Ends on Ctrl-C, after
 * --duration, or after one window with --once.
 */
import { createLogUpdate } from 'log-update';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { parseDurationMs } from '../config/units.js';
import { DCGM } from '../observe/engines.js';
import { RollingSeries } from '../observe/rolling.js';
import { ServerObjective, unsupportedReason, type ObjectiveState } from '../observe/server-objectives.js';
import { parseObjective } from '../config/slo.js';
import { objectiveCatalog } from '../metrics/objective-catalog.js';
import { Scraper, type ScrapeTarget } from '../observe/scraper.js';
import { watchLine, watchTable, type WatchFrame } from '../report/watch-view.js';
import type { CliIo } from './io.js';
import { onAbort } from '../util/on-abort.js';
import { signalExitCode } from './signals.js';

export interface WatchOptions {
  metricsUrl?: string[];
  dcgmUrl?: string[];
  interval?: string;
  window?: string;
  duration?: string;
  once?: boolean;
  json?: boolean;
  slo?: string[];
}

function objectives(texts: string[] | undefined, windowMs: number): ServerObjective[] {
  const catalog = objectiveCatalog();
  return (texts ?? []).map((t) => {
    let o;
    try {
      o = parseObjective(t, catalog);
    } catch (err) {
      throw new UserError(`--slo ${(err as Error).message}`);
    }
    const why = unsupportedReason(o);
    if (why) throw new UserError(`--slo ${why}`);
    return new ServerObjective(o, windowMs);
  });
}

function sloLine(s: ObjectiveState): string {
  const v = s.value_ms === null ? 'no requests finished in its window' : `now ${s.value_ms.toFixed(1)} ms ${s.held ? 'held' : 'MISSED'}`;
  const att = s.attainment === null ? '—' : `${(s.attainment * 100).toFixed(1)}% (${s.passes}/${s.evaluations})`;
  return `${s.breached ? 'ALERT ' : ''}SLO ${s.text}: ${v}; attainment ${att} vs target ${(s.target * 100).toFixed(1)}%`;
}

function duration(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  try {
    const ms = parseDurationMs(text, 's');
    if (!(ms > 0)) throw new Error('must be positive');
    return ms;
  } catch (err) {
    throw new UserError(`${flag}: ${(err as Error).message} (e.g. 2s, 1m)`);
  }
}

function targets(o: WatchOptions): ScrapeTarget[] {
  const urls = [...(o.metricsUrl ?? []).map((url) => ({ url })), ...(o.dcgmUrl ?? []).map((url) => ({ url, engines: [DCGM] }))];
  if (urls.length === 0) throw new UserError('--metrics-url: give the service\'s Prometheus endpoint, e.g. --metrics-url http://localhost:8000/metrics');
  for (const t of urls) {
    try {
      new URL(t.url);
    } catch {
      throw new UserError(`--metrics-url: not a URL: "${t.url}"`);
    }
  }
  return urls;
}

export async function watchCommand(o: WatchOptions, io: CliIo): Promise<number> {
  const intervalMs = duration('--interval', o.interval, 2000);
  const windowMs = duration('--window', o.window, 60_000);
  const durationMs = o.duration === undefined ? null : duration('--duration', o.duration, 0);
  const warn = (line: string) => io.stderr.write(`${line}\n`);
  const scraper = new Scraper({ targets: targets(o), intervalMs: 3_600_000, warn, onProblem: 'retrying at every refresh' });
  const slos = objectives(o.slo, windowMs);
  const rolling = new RollingSeries(windowMs);
  let states: ObjectiveState[] = [];
  const live = !o.json && io.stdout.isTTY === true;
  const draw = live ? createLogUpdate(io.stdout as NodeJS.WriteStream) : null;

  const refresh = (): WatchFrame => {
    rolling.add(scraper.takeNew());
    const now = scraper.nowMs();
    const windows = rolling.windows(now);
    states = slos.map((x) => x.evaluate(windows, now));
    const frame: WatchFrame = { at: new Date().toISOString(), window_s: windowMs / 1000, sources: scraper.sources, series: rolling.summary(now), slo_lines: states.map(sloLine), slos: states };
    if (frame.sources.every((s) => s.scrapes === 0)) return frame; // nothing read yet: the warnings said why
    if (o.json) io.stdout.write(`${JSON.stringify(frame)}\n`);
    else if (draw) draw(watchTable(frame));
    else io.stdout.write(`${watchLine(frame)}\n`);
    return frame;
  };

  await scraper.start();
  const started = Date.now();
  const aborted = new Promise<void>((resolve) => void onAbort(io.signal, resolve));
  let stopped = false;
  void aborted.then(() => (stopped = true));
  let frame: WatchFrame | null = null;
  try {
    for (;;) {
      await Promise.race([new Promise((r) => setTimeout(r, intervalMs)), aborted]);
      if (stopped) break;
      await scraper.scrapeNow();
      frame = refresh();
      if (o.once) break;
      if (durationMs !== null && Date.now() - started >= durationMs) break;
    }
  } finally {
    draw?.done();
    await scraper.stop();
  }
  if (frame !== null && frame.sources.every((s) => s.scrapes === 0)) {
    throw new UserError(`no metrics could be read: ${frame.sources.map((s) => `${s.url}: ${s.problem ?? 'no samples'}`).join('; ')}`);
  }
  // Stopped by Ctrl-C (or SIGTERM, SIGHUP): 128 + the signal, as a stopped run exits.
  if (stopped) return signalExitCode(io.signal);
  // An SLO whose attainment ended below its target fails the watch, as it fails a run.
  return states.some((x) => x.breached) ? EXIT_CODES.SLO_FAILED : EXIT_CODES.OK;
}
