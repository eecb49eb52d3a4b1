/**
 * The flags of `sweep` and `sim sweep` that are not run flags: registered without loading the
 * sweep machinery (main.ts imports a command's code only when it runs).
 */
import { Option, type Command } from 'commander';
import type { FlagDef } from './run-flags.js';

/**
 * A stage's length over HTTP when neither --num-prompts nor --duration is given: long enough for
 * stable percentiles at a few req/s, short enough that a ten-probe search takes minutes, not hours.
 */
export const SWEEP_STAGE_DEFAULTS = { duration: '15s', num_prompts: 500 } as const;

/** Sweep flags that land in the run spec. */
export const STAGE_FLAGS: FlagDef[] = [
  { flag: '--stage-warmup <n|duration>', path: ['load', 'warmup'], kind: 'string', help: 'each stage: excluded from its figures at its start, a request count (20) or a duration (10s)' },
];

export function registerSweepOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--request-rates <list>', 'stages at these open-loop rates, increasing: 1,2,4,8,16,inf'))
    .addOption(new Option('--concurrencies <list>', 'stages at these closed-loop concurrencies, increasing: 1,4,16,64,256'))
    .addOption(new Option('--auto <n>', 'a synchronous baseline (concurrency 1), a max-throughput probe (rate inf), then N rates evenly spaced between their throughputs'))
    .addOption(new Option('--search [kind]', 'find the highest load meeting every --slo: rate (default) or concurrency; the answer is run once more to confirm it (a failed confirmation steps down)'))
    .addOption(new Option('--precision <share>', 'search: stop when the bracket is this narrow, relative to its lower end (default 5%)'))
    .addOption(new Option('--search-start <load>', 'search: first load probed (default 1)'))
    .addOption(new Option('--search-max <load>', 'search: highest load probed (default 1024 req/s or 1024 concurrent)'))
    .addOption(new Option('--batch-sizes <list>', 'embeddings, rerank, score: one stage per batch size (inputs or documents per request), increasing: 1,8,32,128, all at one load (--max-concurrency C); reports inputs/s and latency per batch size'));
}
