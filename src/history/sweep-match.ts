/**
 * The sweep a single run sits on: the newest sweep in the history whose setup (target, workload,
 * simulator: analysis/comparable-spec.ts's setupSpec, the projection without the load) is the
 * run's, with its stages' points — so the run's report can place the run on that sweep's curve.
 * A sweep is found by its stage rows (kind `sweep`); the setup is read from the sweep's own
 * spec.json, since a stage row's spec hash also covers the stage's load. It only reads: the
 * journal's rows beside the file's, the file opened read-only and left as it is (never folded,
 * upgraded or rebuilt), so a finishing run's report writes nothing to the history.
 */
import { join } from 'node:path';
import { canonicalJson, setupSpec } from '../analysis/comparable-spec.js';
import type { SweepContext, SweepStagePoint } from '../analysis/load-curve.js';
import { readJsonFile } from '../store/run-bundle.js';
import { existsSync } from 'node:fs';
import { HISTORY_FILE, hasHistory, pendingRows } from './history-journal.js';
import { runSpec, sweepSpec } from './history-row.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** How many of the newest sweeps with the run's model are read for their setup before giving up. */
const MAX_CANDIDATES = 20;

/**
 * The newest sweep of `resultsDir`'s history whose setup equals the run's (`result` and `spec`:
 * result.json's and spec.json's content), or null. Without a history nothing is opened.
 */
export async function findMatchingSweep(resultsDir: string, result: Obj, spec: unknown): Promise<SweepContext | null> {
  if (!hasHistory(resultsDir)) return null;
  const target = obj(result.target);
  const run = obj(result.run);
  const ctx = { simulated: target.simulated === true, driver: typeof run.driver === 'string' ? run.driver : 'http' };
  const model = typeof target.model === 'string' ? target.model : null;
  const want = canonicalJson(setupSpec(runSpec(result, spec), ctx, model));
  // Read without writing: a report never folds the journal (a finishing run does not open the
  // history for writing), so the journal's rows — a sweep that just finished — are read beside the file's.
  const indexed = existsSync(join(resultsDir, HISTORY_FILE)) ? await indexedSweepRows(resultsDir, model, ctx) : [];
  const pending = pendingRows(resultsDir).filter((r) => r.kind === 'sweep' && r.model === model && r.simulated === ctx.simulated && r.driver === ctx.driver) as unknown as Obj[];
  const rows = [...new Map([...indexed, ...pending].map((r) => [String(r.run_id), r])).values()];
  const time = (r: Obj) => Date.parse(String(r.started_at));
  rows.sort((a, b) => time(b) - time(a) || String(a.run_id).localeCompare(String(b.run_id)));
  const byDir = new Map<string, typeof rows>();
  for (const r of rows) byDir.set(String(r.dir), [...(byDir.get(String(r.dir)) ?? []), r]);
  for (const [dir, stageRows] of [...byDir].slice(0, MAX_CANDIDATES)) {
    const sweepDir = join(resultsDir, dir);
    let doc: Obj;
    try {
      doc = obj(readJsonFile(join(sweepDir, 'sweep.json')));
    } catch {
      continue; // moved or deleted since it was indexed
    }
    // A batch-size sweep has one load for every stage: no load curve to place a run on.
    if (obj(doc.sweep).dimension === 'batch_size') continue;
    if (canonicalJson(setupSpec(sweepSpec(sweepDir, doc), ctx, model)) !== want) continue;
    const analysis = obj(doc.analysis);
    return {
      dir: sweepDir,
      sweep: String(obj(doc.sweep).id ?? stageRows[0]!.name ?? dir),
      started_at: String(stageRows[0]!.started_at),
      stages: stageRows.flatMap(stagePoint).sort((a, b) => a.stage - b.stage),
      knee: num(obj(analysis.knee).load),
      saturation: num(obj(analysis.saturation).load),
    };
  }
  return null;
}

/** A stage row's point: its index (run_id `<sweep id>.stage<i>`), its load, its p99s. */
function stagePoint(r: Obj): SweepStagePoint[] {
  const stage = Number(/\.stage(\d+)$/.exec(String(r.run_id))?.[1] ?? NaN);
  const rate = num(r.request_rate);
  const concurrency = num(r.concurrency);
  const at = rate !== null ? { kind: 'rate' as const, load: rate } : concurrency !== null ? { kind: 'concurrency' as const, load: concurrency } : null;
  if (at === null || !Number.isFinite(stage)) return [];
  return [{ stage, ...at, ttft_p99_ms: num(r.ttft_p99_ms), e2el_p99_ms: num(r.e2el_p99_ms) }];
}

/** The history file's sweep rows of this model, simulator use and driver (DuckDB loaded only here). */
async function indexedSweepRows(resultsDir: string, model: string | null, ctx: { simulated: boolean; driver: string }): Promise<Obj[]> {
  const { withHistory } = await import('./history-db.js');
  const { queryRows } = await import('./history-query.js');
  return withHistory(resultsDir, { mode: 'read', fold: false }, (c) =>
    queryRows(
      c,
      `SELECT run_id, dir, name, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at, request_rate, concurrency, ttft_p99_ms, e2el_p99_ms
       FROM runs WHERE kind = 'sweep' AND model IS NOT DISTINCT FROM ? AND simulated = ? AND driver = ?`,
      [model, ctx.simulated, ctx.driver],
    ),
  );
}
