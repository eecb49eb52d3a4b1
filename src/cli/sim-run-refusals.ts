/**
 * Settings of `infermeter run` that have no honest meaning in `sim run`'s virtual time. They
 * are refused with one line rather than accepted and silently ignored, so a figure never
 * rests on a setting that did nothing. Each entry says why.
 */
import { UserError } from '../errors/user-error.js';
import type { RunSpec } from '../session/run-spec.js';

interface Refusal {
  /** The command-line flag (long name) and the commander attribute it parses into. */
  flag: string;
  attr: string;
  /** The spec key a config file would set, and whether the resolved spec sets it. */
  key: string;
  setIn: (spec: RunSpec) => boolean;
  why: string;
}

const sessionsSet = (spec: RunSpec, field: 'session_turns' | 'think_time_ms'): boolean =>
  spec.workload[field] !== null || (spec.workload.tasks ?? []).some((t) => t[field] !== undefined && t[field] !== null);

/** The simulator's answer-mode rates: [flag, commander attribute, sim spec field, default]. */
const ANSWER_MODE = [
  ['--sim-accuracy', 'simAccuracy', 'accuracy', 1],
  ['--sim-json-error-rate', 'simJsonErrorRate', 'json_error_rate', 0],
  ['--sim-hallucination-rate', 'simHallucinationRate', 'hallucination_rate', 0],
  ['--sim-refusal-rate', 'simRefusalRate', 'refusal_rate', 0],
] as const;

export const VIRTUAL_TIME_REFUSALS: readonly Refusal[] = [
  {
    flag: '--grace',
    attr: 'grace',
    key: 'load.grace_ms',
    setIn: (s) => s.load.grace_ms !== 30_000,
    why: 'sim run lets every request finish and does not cancel in-flight requests after --duration',
  },
  { flag: '--workers', attr: 'workers', key: 'load.workers', setIn: (s) => s.load.workers !== null, why: 'virtual time has no sending threads' },
  { flag: '--preconnect', attr: 'preconnect', key: 'load.preconnect', setIn: (s) => s.load.preconnect !== null, why: 'virtual time opens no connections' },
  { flag: '--busy-poll', attr: 'busyPoll', key: 'load.busy_poll', setIn: (s) => s.load.busy_poll, why: 'virtual time has no timer wake-up delay to avoid' },
  { flag: '--keep-text', attr: 'keepText', key: 'output.keep_text', setIn: (s) => s.output.keep_text, why: 'the virtual engine generates token counts, not text' },
  {
    flag: '--session-turns',
    attr: 'sessionTurns',
    key: 'workload.session_turns',
    setIn: (s) => sessionsSet(s, 'session_turns'),
    why: 'virtual time does not model multi-turn sessions (think time, history growth); use `infermeter run` against the built-in simulator',
  },
  {
    flag: '--think-time',
    attr: 'thinkTime',
    key: 'workload.think_time_ms',
    setIn: (s) => sessionsSet(s, 'think_time_ms'),
    why: 'virtual time does not model multi-turn sessions (think time, history growth); use `infermeter run` against the built-in simulator',
  },
  ...ANSWER_MODE.map(([flag, attr, field, unset]): Refusal => ({
    flag,
    attr,
    key: `sim.${field}`,
    setIn: (s) => s.sim[field] !== unset,
    why: 'the virtual engine generates token counts, not answers; the answer mode needs `infermeter run` against the built-in simulator',
  })),
];

/** Flags `sim run` keeps registered (so the refusal is explained) but hides from --help. */
export const REFUSED_FLAGS: ReadonlySet<string> = new Set(VIRTUAL_TIME_REFUSALS.map((r) => r.flag));

/**
 * Throws a UserError for the first refused setting, named as the user gave it: the flag
 * when given on the command line, else the config-file key.
 */
export function refuseVirtualTimeSettings(opts: Record<string, unknown>, spec: RunSpec): void {
  for (const r of VIRTUAL_TIME_REFUSALS) {
    if (opts[r.attr] !== undefined) throw new UserError(`${r.flag} has no meaning in sim run: ${r.why}`);
    if (r.setIn(spec)) throw new UserError(`${r.key} (config) has no meaning in sim run: ${r.why}`);
  }
}
