/**
 * A sweep over the batch size (`--batch-sizes 1,8,32,128`): one stage per batch size, at one
 * fixed load, for the kinds whose requests carry a batch of inputs (embeddings; documents for
 * rerank and score). The load-curve analysis (saturation, knee, degradation) assumes load on the
 * x axis and is not run on it; what such a sweep answers instead is here: the batch size with the
 * most inputs/s, and the largest batch size whose stage held every SLO.
 */
import { UserError } from '../errors/user-error.js';
import type { StageResult } from './sweep-result.js';

/** What a sweep varies between its stages: the load (rates, concurrencies), or the batch size at a fixed load. */
export type SweepDimension = 'load' | 'batch_size';

/** Why a batch-size sweep has no saturation point, knee or degradation point (the summary, the report and sweep.json say it). */
export const BATCH_SWEEP_CURVE_NOTE = 'not run on a batch-size sweep: saturation, knee and degradation read a curve over offered load, and every stage here has the same load';

/** `1,8,32,128` → batch sizes (positive integers, increasing); one line naming the flag when wrong. */
export function parseBatchSizeList(text: string, flag = '--batch-sizes'): number[] {
  const parts = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0) throw new UserError(`${flag}: give at least one batch size, e.g. 1,8,32,128`);
  const sizes = parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || !Number.isSafeInteger(n) || n < 1) throw new UserError(`${flag}: batch sizes are positive integers such as 1,8,32,128, got "${p}"`);
    return n;
  });
  for (let i = 1; i < sizes.length; i++) {
    if (!(sizes[i]! > sizes[i - 1]!)) throw new UserError(`${flag}: batch sizes must increase, but ${sizes[i]} follows ${sizes[i - 1]}`);
  }
  return sizes;
}

/** A stage named by its batch size. */
export interface BatchStageRef {
  index: number;
  batch_size: number;
}

/** sweep.json `analysis.batch`: the answers a batch-size sweep gives (docs/sweep-schema.md). */
export interface BatchSweepFindings {
  /** The stage with the most inputs/s (documents/s for rerank and score); ties: the smaller batch. null when no stage has the figure. */
  best_inputs_per_s: (BatchStageRef & { inputs_per_s: number }) | null;
  /** The largest batch size whose stage held every SLO (completed, not stopped early); null without SLOs or when none held. */
  largest_meeting_slos: BatchStageRef | null;
  /** Whether SLOs were given (null above means "none held" only when true). */
  slos_given: boolean;
  /** Why the load-curve findings are null. */
  curve: string;
}

type Stage = Pick<StageResult, 'index' | 'batch_size' | 'slos_pass' | 'stopped_early'> & { metrics: Pick<StageResult['metrics'], 'batch'> };

/** Stage indices by ascending batch size (then index). */
export function batchOrder(stages: readonly Stage[]): number[] {
  return [...stages].sort((a, b) => (a.batch_size ?? 0) - (b.batch_size ?? 0) || a.index - b.index).map((s) => s.index);
}

export function batchFindings(stages: readonly Stage[], slosGiven: boolean): BatchSweepFindings {
  let best: BatchSweepFindings['best_inputs_per_s'] = null;
  let largest: BatchStageRef | null = null;
  const byIndex = new Map(stages.map((s) => [s.index, s]));
  for (const i of batchOrder(stages)) {
    const s = byIndex.get(i)!;
    if (s.batch_size === undefined) continue;
    const v = s.metrics.batch?.inputs_per_s ?? null;
    if (v !== null && (best === null || v > best.inputs_per_s)) best = { index: s.index, batch_size: s.batch_size, inputs_per_s: v };
    if (slosGiven && s.slos_pass === true && s.stopped_early === null) largest = { index: s.index, batch_size: s.batch_size };
  }
  return { best_inputs_per_s: best, largest_meeting_slos: largest, slos_given: slosGiven, curve: BATCH_SWEEP_CURVE_NOTE };
}
