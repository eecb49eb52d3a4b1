/** repeats.json, the file of a repeat directory (`run --repeat N`): its type, versioned (docs/repeats.md). */
import type { SpreadOverRuns } from '../analysis/over-runs.js';
import type { FigureId } from '../analysis/compare/key-figures.js';

export const REPEATS_SCHEMA = 'infermeter.repeats/1';
/** Schemas this version reads (compare of repeat directories). */
export const READABLE_REPEATS_SCHEMAS: readonly string[] = [REPEATS_SCHEMA];
/** The confidence of repeats.json's intervals of the mean. */
export const REPEAT_CONFIDENCE = 0.95;

export interface RepeatRunEntry {
  index: number;
  /** The run directory, relative to the repeat directory (`repeat-1`). */
  dir: string;
  run_id: string | null;
  seed: number;
  prompt_salt: string | null;
  valid: boolean | null;
  /** The validity verdict's reasons (empty when valid). */
  reasons: string[];
  /** Every --slo passed; null without SLOs. */
  slo_pass: boolean | null;
  interrupted: boolean;
}

/** repeats.json (docs/repeats.md). */
export interface RepeatsFile {
  schema: typeof REPEATS_SCHEMA;
  id: string;
  name: string;
  driver: 'http' | 'virtual';
  started_at: string;
  ended_at: string;
  /** The comparable projection's hash (the history's spec_hash): every repeat has it. */
  spec_hash: string | null;
  repeats_asked: number;
  runs: RepeatRunEntry[];
  /** Per figure (compare's key figures), over the runs that were valid and not interrupted. */
  figures: Partial<Record<FigureId, SpreadOverRuns & { values: number[] }>>;
  /** Runs the figures rest on, of `runs.length`. */
  runs_in_figures: number;
}

