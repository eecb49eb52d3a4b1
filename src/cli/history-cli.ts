/** Registers `history`, `trend`, `sql` (and `dashboard`) on the program: flags and help only (their code loads when one runs). */
import { Option, type Command } from 'commander';
import { TREND_METRICS } from '../history/trend-metrics.js';
import type { CliIo } from './io.js';

/**
 * The results folder is `--result-dir` in every command, as vLLM's bench serve names it (run,
 * sweep and sim write there); these commands first called it `--results-dir`, kept as a hidden alias.
 */
function addResultDirOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--result-dir <dir>', 'the results folder holding history.duckdb and the run directories (default results)'))
    .addOption(new Option('--results-dir <dir>', 'alias of --result-dir').hideHelp());
}

/** The folder either flag gave (--result-dir when both are given). */
function withResultDir<O extends { resultDir?: string; resultsDir?: string }>(opts: O): O & { resultsDir: string } {
  return { ...opts, resultsDir: opts.resultDir ?? opts.resultsDir ?? 'results' };
}

export function registerHistoryCommands(program: Command, io: CliIo, setExit: (code: number) => void): void {
  addResultDirOptions(program.command('history'))
    .description('list the runs in the history (results/history.duckdb), newest first')
    .addOption(new Option('--model <name>', 'only runs of a model (substring, case-insensitive)'))
    .addOption(new Option('--since <when>', 'only runs started since: 30m, 12h, 7d, 2w, or a date (2026-11-01)'))
    .addOption(new Option('--spec <hash>', 'only runs of one spec (a spec hash or its prefix)'))
    .addOption(new Option('--where <field=value>', 'only runs whose environment fingerprint has this value, e.g. engine_version=0.6.3, gpu_model="NVIDIA H100 80GB HBM3", engine_settings.block_size=16 (repeatable; all must hold)').argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]))
    .addOption(new Option('--limit <n>', 'at most n runs (default 20 in the table, all with --json)'))
    .addOption(new Option('--json', 'print the rows as JSON'))
    .addOption(new Option('--reindex', 'first (re)index every run directory under the results folder'))
    .addHelpText('after', '\nThe history format and every column: docs/history.md. Runs are indexed when they finish.')
    .action(async (opts: { resultDir?: string; resultsDir?: string }) => setExit(await (await import('./history-command.js')).historyCommand(withResultDir(opts), io)));

  addResultDirOptions(program.command('trend'))
    .description('a metric across the runs of one spec, and whether the newest run regressed against the previous comparable one')
    .argument('<metric>', `one of ${Object.keys(TREND_METRICS).join(', ')} (the _ms may be left out)`)
    .addOption(new Option('--spec <hash>', 'the spec to follow (hash or prefix; default: the newest run\'s)'))
    .addOption(new Option('--run <id>', 'follow the spec of this run'))
    .addOption(new Option('--limit <n>', 'only the newest n runs of the spec'))
    .addOption(new Option('--threshold <pct>', 'a change worse than this is a regression').default('10%'))
    .addOption(new Option('--fail-on-regression', 'exit 4 when the newest comparable run regressed'))
    .addOption(new Option('--allow-invalid', 'judge invalid runs too (else a trend whose newest run is invalid gives no verdict and exits 5)'))
    .addOption(new Option('--band', 'judge the newest comparable run against the noise band of the earlier ones (a prediction interval; needs 3 or more; --threshold is not used)'))
    .addOption(new Option('--confidence <pct>', 'the noise band\'s level (default 95%)'))
    .addOption(new Option('--json', 'print the trend as JSON'))
    .addHelpText('after', '\nComparable runs: same spec hash, valid and not interrupted. Exit 4 with --fail-on-regression on a regression; exit 5 when the newest run is invalid (unless --allow-invalid).')
    .action(async (metric: string, opts: { resultDir?: string; resultsDir?: string; threshold: string }) => setExit(await (await import('./history-command.js')).trendCommand(metric, withResultDir(opts), io)));

  addResultDirOptions(program.command('sql'))
    .description('run a DuckDB SQL query over the history (view `runs`) and every run\'s records (view `records`)')
    .argument('<query>', 'e.g. "SELECT run_id, quantile_cont(ttft_ms, 0.99) FROM records WHERE status = \'ok\' AND phase = \'measure\' GROUP BY run_id"')
    .addOption(new Option('--json', 'print the rows as JSON'))
    .addOption(new Option('--allow-files', 'DuckDB\'s full power: read and write files, ATTACH, COPY, INSTALL and LOAD extensions (downloads them)'))
    .addHelpText('after', '\nViews and columns: docs/history.md. The query runs in a throwaway database, read-only: only queries (SELECT, WITH, FROM,\nDESCRIBE, SHOW, SUMMARIZE, EXPLAIN), no files, no ATTACH, no extensions, so it cannot change the history or reach\nanything else; --allow-files lifts this.')
    .action(async (query: string, opts: { resultDir?: string; resultsDir?: string; json?: boolean; allowFiles?: boolean }) => setExit(await (await import('./history-command.js')).sqlCommand(query, withResultDir(opts), io)));

  addResultDirOptions(program.command('dashboard'))
    .description('serve a read-only web page on 127.0.0.1: the runs of the history with their reports, trends, load curves, and runs in progress, live')
    .addOption(new Option('--port <port>', 'port on 127.0.0.1 (0: a free one)').default('8300'))
    .addHelpText('after', '\nNothing is fetched from the network: the page, its script and its charts come from this process. Ctrl-C stops it.')
    .action(async (opts: { resultDir?: string; resultsDir?: string; port: string }) => setExit(await (await import('./dashboard-command.js')).dashboardCommand(withResultDir(opts), io)));
}
