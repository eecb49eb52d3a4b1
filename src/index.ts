/**
 * infermeter as a library: `import { run, runRepeated, analyze, compare, sweep, simulate, plan } from 'infermeter'`
 * (docs/api.md says what is stable under semver).
 */
export { run, runRepeated, simulate, sweep, analyze, plan, compare, runSpec, AbortedBeforeStart, type SessionOptions, type SweepStages } from './session/api.js';
export type { RunSpec, RunSpecInput } from './session/run-spec.js';
export type { RunResult } from './report/result-json.js';
export type { RepeatsFile, RepeatRunEntry } from './report/repeats-json.js';
export type { SweepResult, StageResult } from './sweep/sweep-result.js';
export type { PlanReport } from './report/plan-report.js';
export type { CompareResult } from './session/compare-runs.js';
export type { CompareOptionsInput } from './config/command-options.js';
export type { PairComparison, FigureComparison, Verdict } from './analysis/compare/compare.js';
export type { Gate } from './analysis/gates.js';
export type { RunValidity } from './analysis/run-validity.js';
export type { ProgressSnapshot } from './runner/progress.js';
export { UserError } from './errors/user-error.js';
export { EXIT_CODES, exitCodeFor, type Outcome } from './errors/exit-codes.js';
