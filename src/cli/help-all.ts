/**
 * `--help` shows what most runs need, under its headings; `--help-all` adds the rarely used flags
 * (simulator engine tuning, vLLM JSON shaping, timing and transport knobs, dataset variants).
 * Which flags count as rarely used is this list, by long name, whatever command has them; every
 * one still works when hidden.
 */
import type { Command, Option } from 'commander';

/** The options applyHelpLevel hid (others are hidden by their command: sim run's refused flags). */
const hiddenAsRare = new WeakSet<Option>();

/** Whether `o` is shown in --help, or only hidden from it as rarely used (shown by --help-all). */
export function shownInHelpAll(o: Option): boolean {
  return !o.hidden || hiddenAsRare.has(o);
}

export const ADVANCED_FLAGS: ReadonlySet<string> = new Set([
  // target and transport
  '--stall-timeout', '--no-preflight', '--no-ignore-eos', '--api-key-env', '--proxy', '--no-proxy',
  // load timing
  '--burstiness', '--grace', '--preconnect', '--busy-poll', '--ramp-down', '--cooldown',
  // the built-in simulator's engine, reasoning and answer modes
  '--sim-prefill-ms', '--sim-per-token-ms', '--max-num-seqs', '--max-num-batched-tokens', '--gpu-memory-utilization', '--block-size',
  '--max-model-len', '--num-gpu-blocks-override', '--no-enable-prefix-caching', '--engine-preset', '--num-scheduler-steps', '--sim-profile',
  '--reasoning-field', '--sim-accuracy', '--sim-json-error-rate', '--sim-hallucination-rate', '--sim-refusal-rate',
  // server metrics
  '--nvidia-smi', '--prometheus-url', '--scrape-interval', '--cold-start-timeout',
  // output shaping
  '--percentile-metrics', '--metric-percentiles', '--label', '--keep-text',
  // validity
  '--no-capacity-check',
  // dataset variants
  '--random-range-ratio', '--random-prefix-len', '--input-len', '--output-len', '--sharegpt-output-len', '--sampling',
  '--min-input-len', '--max-input-len', '--min-output-len', '--max-output-len', '--max-total-len',
  '--prefix-num-groups', '--prefix-len', '--prefix-mode', '--prefix-repeat', '--prefix-repetition-num-prefixes', '--prefix-repetition-prefix-len',
  '--prefix-repetition-suffix-len', '--prefix-repetition-output-len', '--trace-format', '--trace-block-size', '--prefix-block-size',
  '--hf-subset', '--hf-split', '--hf-prompt-field', '--hf-output-len', '--system-prompt-len', '--prompt-salt',
  '--random-mm-num-mm-items-range-ratio', '--random-mm-limit-mm-per-prompt', '--random-mm-bucket-config', '--audio-duration-ms',
  // distributed
  '--worker-timeout', '--start-delay',
]);

/** Whether the command line asks for every flag: `--help-all` anywhere (it then stands for --help). */
export function helpAllRequested(argv: readonly string[]): boolean {
  return argv.includes('--help-all');
}

/** Every command with its subcommands, depth first. */
export function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

/**
 * Hides the rarely used flags from every command's --help and says under it how to see them;
 * with `all` (--help-all) hides nothing more than the command did itself.
 */
export function applyHelpLevel(program: Command, all: boolean): void {
  for (const cmd of allCommands(program)) {
    const advanced = cmd.options.filter((o) => !o.hidden && o.long !== undefined && ADVANCED_FLAGS.has(o.long));
    if (advanced.length === 0) continue;
    const path = commandPath(cmd);
    if (all) continue;
    for (const o of advanced) {
      o.hidden = true;
      hiddenAsRare.add(o);
    }
    cmd.addHelpText('after', `\n${advanced.length} more flags (simulator engine, timing, output shaping, dataset variants): infermeter ${path} --help-all`);
  }
}

/** `sim run` for the command `run` under `sim`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
