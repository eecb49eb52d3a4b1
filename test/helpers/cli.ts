/** Runs the CLI in-process with captured output. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

/**
 * The CLI imports a command's code only when the command runs (src/cli/main.ts). Tests start
 * servers with clocks (a scheduled restart, Prometheus scrapes, a fixed wait) and then call
 * runCli, and a first import here blocks this process — the in-process server with it — for a
 * while on a busy machine. So every command is loaded once, up front, before any test starts
 * its clock: as a CLI process has its code loaded before it starts a run.
 */
await Promise.all([
  import('../../src/cli/run-command.js'),
  import('../../src/session/distributed-run.js'),
  import('../../src/cli/worker-command.js'),
  import('../../src/cli/analyze-command.js'),
  import('../../src/cli/compare-command.js'),
  import('../../src/cli/report-command.js'),
  import('../../src/cli/export-command.js'),
  import('../../src/cli/plan-command.js'),
  import('../../src/cli/watch-command.js'),
  import('../../src/cli/sweep-command.js'),
  import('../../src/cli/sim-run-command.js'),
  import('../../src/cli/sim-calibrate-command.js'),
  import('../../src/cli/sim-command.js'),
  import('../../src/cli/resolve-spec.js'),
  import('../../src/cli/history-command.js'),
  import('../../src/cli/dashboard-command.js'),
]);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A writable that collects what is written to it. */
export function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      w.text += chunk.toString();
      cb();
    },
  }) as Writable & { text: string };
  w.text = '';
  return w;
}

/** `signal` stands for Ctrl-C: aborting it interrupts the command as SIGINT would. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = {}, signal: AbortSignal = new AbortController().signal): Promise<CliResult> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout, stderr, env, signal });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Reasons of an INVALID verdict in a CLI's output (the --json result or the printed summary). */
export function invalidReasons(out: CliResult): Array<{ check: string | null; reason: string }> {
  try {
    const v = (JSON.parse(out.stdout) as { validity: { reasons: string[]; failed_checks: string[] } }).validity;
    return v.reasons.map((reason, i) => ({ check: v.failed_checks[i] ?? null, reason }));
  } catch {
    const at = out.stdout.indexOf('Run validity: INVALID');
    if (at < 0) return [];
    const lines = out.stdout.slice(at).split('\n').slice(1);
    const reasons = [];
    for (const line of lines) {
      if (!line.startsWith('  - ')) break;
      const reason = line.slice(4);
      reasons.push({ check: reason.startsWith('client ') ? 'client' : reason.startsWith('prompts were served') ? 'prompt_lengths' : null, reason });
    }
    return reasons;
  }
}

/**
 * Findings that do not say the requests failed: the client's own (a busy test machine may rightly
 * fall behind) and prompt_lengths — tests' stub servers answer a fixed `usage` whatever the prompt.
 * (The built-in simulator's runs are not flagged, chat included: the pre-flight calibration
 * accounts for its template per request and per message; test/analysis/prompt-lengths-chat.test.ts.)
 */
const CLIENT_CHECK_IDS = new Set(['dispatch_lag', 'event_loop', 'client_busy', 'client', 'prompt_lengths']);

/**
 * A run that completed as it should: exit 0, or exit 5 only because of the findings above,
 * never because requests failed.
 */
export function expectCompleted(out: CliResult): void {
  if (out.code === 0) return;
  const reasons = invalidReasons(out);
  if (out.code !== 5 || reasons.length === 0 || !reasons.every((r) => CLIENT_CHECK_IDS.has(r.check ?? ''))) {
    throw new Error(`expected exit 0 (or 5 for a client that fell behind), got ${out.code}: ${reasons.map((r) => r.reason).join('; ')}\n${out.stderr}`);
  }
}

/**
 * Resolves once a run under `resultDir` has written at least one record to records.jsonl (the
 * run directory is created once the load is about to start). Event order, not a fixed sleep:
 * a test that interrupts a run waits for this, however slow the machine.
 */
export async function firstRecordWritten(resultDir: string, isDone: () => boolean = () => false): Promise<string> {
  for (;;) {
    const dirs = existsSync(resultDir) ? readdirSync(resultDir).filter((d) => !d.startsWith('.')) : [];
    const path = dirs.length > 0 ? join(resultDir, dirs[0]!, 'records.jsonl') : null;
    if (path !== null && existsSync(path) && statSync(path).size > 0) return join(resultDir, dirs[0]!);
    if (isDone()) throw new Error(`the run ended before any record was written under ${resultDir}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
