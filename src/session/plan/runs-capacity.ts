/**
 * Capacity from measured data: a saved sweep, or run directories at increasing load (a manual
 * sweep of a real server, or `sim run`s), every stage judged against the SLOs from its records.
 *
 *   stage rate     = the open loop's offered rate (request_rate), else the measured requests/s
 *   sustainable    = the highest stage rate below the first stage that fails an SLO
 *   concurrency    = the highest concurrency seen among those passing stages: a closed loop's
 *                    users, or the peak in flight of an open loop — said which, and at what load,
 *                    since an open loop's peak is not a closed loop that held
 *   lengths        = the longest input and output seen in the passing stages (measured data
 *                    cannot extrapolate beyond what was sent)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../errors/user-error.js';
import { computeMetrics, measureRecords } from '../../metrics/index.js';
import type { RunResult } from '../../report/result-json.js';
import { readRunBundle, type RunBundle } from '../../store/run-bundle.js';
import type { RequestRecord } from '../../record/record.js';
import { readSweep } from '../saved-sweep.js';
import { isSweepDir } from '../../store/run-bundle.js';
import type { Judge } from './sim-capacity.js';

export interface StageVerdict {
  path: string;
  rate: number;
  pass: boolean;
  failing: string[];
  peak_concurrency: number;
  /** The kind of stage: a closed loop of `concurrency` users, or an open loop at a rate. */
  loop: 'closed' | 'open';
  /** `c=8`, `1.875 req/s`, `inf`. */
  load: string;
  max_input_len: number;
  max_output_len: number;
  /** Why the measurement is invalid (its verdict's first reason); null when valid or not judged. */
  invalid: string | null;
}

export interface RunsCapacity {
  stages: StageVerdict[];
  /** Null when even the lowest stage fails. */
  rate_per_replica: number | null;
  max_concurrency: number | null;
  /** The passing stage the concurrency was seen in; null with max_concurrency. */
  max_concurrency_stage: { loop: 'closed' | 'open'; load: string; path: string } | null;
  max_input_len: number | null;
  max_output_len: number | null;
}

interface StageInput {
  path: string;
  records: RequestRecord[];
  /** The open loop's offered rate; null: take the measured requests/s. */
  offered: number | null;
  loop: 'closed' | 'open';
  load: string;
  /** The saved validity verdict of the run or stage (null when it had none). */
  validity: { valid: boolean; reasons: string[] } | null;
}

function judgeStage(st: StageInput, judge: Judge): StageVerdict {
  const m = computeMetrics(st.records);
  const ok = measureRecords(st.records).filter((r) => r.status === 'ok');
  const j = judge(st.records);
  return {
    path: st.path,
    rate: st.offered ?? m.throughput.request_per_s ?? 0,
    pass: j.pass,
    failing: j.failing,
    peak_concurrency: m.throughput.peak_concurrency,
    loop: st.loop,
    load: st.load,
    max_input_len: Math.max(0, ...ok.map((r) => r.prompt_tokens ?? r.client_prompt_tokens ?? 0)),
    max_output_len: Math.max(0, ...ok.map((r) => r.output_tokens)),
    invalid: st.validity && !st.validity.valid ? (st.validity.reasons[0] ?? 'invalid') : null,
  };
}

/** A run directory is one stage; a sweep directory is one stage per sweep stage. */
function readStages(dir: string, warn?: (line: string) => void): StageInput[] {
  if (isSweepDir(dir)) {
    return readSweep(dir, '--from', warn).stages.map((s) => ({
      path: `${dir} [stage ${s.index}: ${s.label}]`,
      records: s.records,
      offered: s.load.kind === 'rate' && typeof s.load.rate === 'number' ? s.load.rate : null,
      loop: s.load.kind === 'concurrency' ? 'closed' : 'open',
      load: s.label,
      validity: s.validity ?? null,
    }));
  }
  if (!existsSync(join(dir, 'result.json')) || !existsSync(join(dir, 'records.jsonl'))) throw new UserError(`--from ${dir}: not a run or sweep directory (result.json and records.jsonl, or sweep.json)`);
  let run: RunBundle<Partial<RunResult>>;
  try {
    run = readRunBundle(dir, { records: 'required', ...(warn ? { warn } : {}) });
  } catch (err) {
    throw err instanceof UserError ? new UserError(`--from ${err.message}`) : err;
  }
  const result = run.result;
  const offered = result.load?.request_rate;
  const closed = result.load?.mode !== 'open' && typeof result.load?.concurrency === 'number';
  const rate = typeof offered === 'number' && Number.isFinite(offered) && result.load?.mode === 'open' ? offered : null;
  return [
    {
      path: dir,
      records: run.records,
      offered: rate,
      loop: closed ? 'closed' : 'open',
      load: closed ? `c=${String(result.load!.concurrency)}` : rate !== null ? `${Number(rate.toPrecision(4))} req/s` : 'inf',
      validity: result.validity ?? null,
    },
  ];
}

export function runsCapacity(dirs: readonly string[], judge: Judge, warn?: (line: string) => void): RunsCapacity {
  const stages = dirs.flatMap((d) => readStages(d, warn)).map((st) => judgeStage(st, judge)).sort((a, b) => a.rate - b.rate);
  const firstFail = stages.findIndex((s) => !s.pass);
  const passing = firstFail < 0 ? stages : stages.slice(0, firstFail);
  if (passing.length === 0) return { stages, rate_per_replica: null, max_concurrency: null, max_concurrency_stage: null, max_input_len: null, max_output_len: null };
  // The largest concurrency a passing stage saw; of equals, a closed loop's (it held that many users throughout).
  const top = passing.reduce((best, s) => (s.peak_concurrency > best.peak_concurrency || (s.peak_concurrency === best.peak_concurrency && s.loop === 'closed' && best.loop === 'open') ? s : best));
  return {
    stages,
    rate_per_replica: passing[passing.length - 1]!.rate,
    max_concurrency: top.peak_concurrency,
    max_concurrency_stage: { loop: top.loop, load: top.load, path: top.path },
    max_input_len: Math.max(...passing.map((s) => s.max_input_len)),
    max_output_len: Math.max(...passing.map((s) => s.max_output_len)),
  };
}
