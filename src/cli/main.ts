/**
 * The infermeter command line. Commands are thin: parse, call the modules, print.
 * A UserError (bad flag, config, dataset, unreachable server) prints one line and exits 2.
 */
import { Command, CommanderError, Option } from 'commander';
import { EXIT_CODE_HELP, EXIT_CODES } from '../errors/exit-codes.js';
import { UserError } from '../errors/user-error.js';
import { GROUP_MARK } from '../analysis/compare/group-mark.js';
import { registerWorkloadOptions } from '../workload/flags.js';
import { processIo, type CliIo } from './io.js';
import { infermeterVersion } from '../session/version.js';
import { COST_FLAGS, LOAD_FLAGS, OBSERVE_FLAGS, OUTPUT_FLAGS, ENGINE_FLAGS, registerFlags, SERVE_SIM_FLAGS, SIM_FLAGS, SIM_PROFILE_FLAG, TARGET_FLAGS, VALIDITY_FLAGS, VLLM_JSON_FLAGS, registerProxyOptions, withProxyFlags } from './run-flags.js';
import { FAULT_FLAGS } from './fault-flags.js';
import { REFUSED_FLAGS, refuseVirtualTimeSettings } from './sim-run-refusals.js';
import { registerHistoryCommands } from './history-cli.js';
import { registerSweepOptions, STAGE_FLAGS, SWEEP_STAGE_DEFAULTS } from './sweep-flags.js';

const SWEEP_HELP = `
Each stage runs the same workload and seed; only the load changes. Each stage sends fresh prompts
(its own salt, the same lengths), so a server's prefix cache cannot serve it from an earlier
stage's; its prefix-cache hit rate is shown and a stage far from the others is flagged (a
shared-prefix workload, or --prompt-salt "", keeps the prompts of every stage the same).
Per stage: --num-prompts and/or --duration (whichever ends first), --stage-warmup. Examples:
  infermeter sim sweep --hardware h100 --model llama-3.1-8b --auto 8
  infermeter sweep --base-url http://localhost:8000 --request-rates 1,2,4,8,16,inf --num-prompts 300
  infermeter sweep --concurrencies 1,4,16,64,256 --num-prompts 500 --stage-warmup 20
  infermeter sweep --search --slo 'p95(ttft) < 1.5s' --slo 'p95(tpot) < 80ms' --precision 5%

Results: <result-dir>/<timestamp>-sweep/ with records.jsonl (each record's "stage") and
sweep.json (docs/sweep-schema.md). Exit 5 when a stage is invalid (--allow-invalid accepts it), else
exit 3 when a stage's SLO failed (--search: when no load met them and held in its confirmation run).
Against a server (sweep, not sim sweep), the client's capacity check runs before the first stage,
as for run, on the most demanding stage of a list (--no-capacity-check skips it).`;
import { listenForStopSignals, STOPPING_REQUESTS } from './signals.js';
import { registerK8sCommand } from './k8s-cli.js';
import { coordinatorFlags, registerCoordinatorOptions, registerWorkerOptions, workerFlags } from './distributed-flags.js';
import { debugRequested, reportInternalError } from './internal-error.js';
import { fdLimitPhrase, isFdExhaustion } from '../util/fd-limit.js';
import type { resolveRunSpec } from './resolve-spec.js';
import { applyHelpLevel, helpAllRequested } from './help-all.js';

type ResolveOptions = Parameters<typeof resolveRunSpec>[1];

/*
 * A command's code is imported when the command runs, not before: loading every command (DuckDB,
 * the Vega compiler, NATS, the HTTP server…) costs more CPU than a whole `sim run` of minutes of
 * traffic. Only flag definitions are imported up front.
 */
/** `run` honours OPENAI_BASE_URL and says first which target it uses (resolve-spec.ts). */
const targetFromEnv = (io: CliIo): ResolveOptions => ({ env: io.env, log: (line) => io.stderr.write(`${line}\n`) });
const resolveSpec = async (opts: Record<string, unknown>, how?: ResolveOptions) => (await import('./resolve-spec.js')).resolveRunSpec(opts, how);

/** The run spec's flags, shared by `run` and `worker` (a worker must load the coordinator's spec). */
function registerRunSpecOptions(cmd: Command): void {
  cmd.addOption(new Option('--config <file>', 'run spec file (YAML or JSON); flags override it; see `infermeter schema`'));
  cmd.optionsGroup('Target:');
  registerFlags(cmd, TARGET_FLAGS);
  registerProxyOptions(cmd);
  cmd.optionsGroup('Load:');
  registerFlags(cmd, LOAD_FLAGS);
  cmd.optionsGroup('Workload:');
  registerWorkloadOptions(cmd);
  cmd.optionsGroup('Server metrics (docs/observe.md):');
  registerFlags(cmd, OBSERVE_FLAGS);
  cmd.optionsGroup('Built-in simulator (no --base-url):');
  registerFlags(cmd, SIM_FLAGS);
  cmd.optionsGroup('Cost:');
  registerFlags(cmd, COST_FLAGS);
  cmd.optionsGroup('Output:');
  registerFlags(cmd, OUTPUT_FLAGS);
  cmd.optionsGroup('Validity:');
  registerFlags(cmd, VALIDITY_FLAGS);
}

/** `helpAll`: --help shows every flag (cli/help-all.ts), else the rarely used ones are hidden from it. */
function buildProgram(io: CliIo, setExit: (code: number) => void, helpAll = false): Command {
  const program = new Command('infermeter')
    .description('Evaluate LLM inference services: TTFT, TPOT, ITL, throughput, goodput. Without --base-url it runs against a built-in simulated engine.')
    .version(infermeterVersion())
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showSuggestionAfterError(true)
    .option('--debug', 'print the stack trace of an internal error (give it before or after the command)')
    // Never parsed: main() reads it first and hands commander --help (cli/help-all.ts).
    .option('--help-all', 'every flag of a command, also the rarely used ones: infermeter COMMAND --help-all');

  const run = program
    .command('run')
    .description('benchmark an OpenAI-compatible endpoint (or the built-in simulator) and report latency, throughput and goodput');
  registerRunSpecOptions(run);
  run.addOption(new Option('--repeat <n>', 'run the spec N times, each with its own seed (+1 per run) and prompt salt, into one repeat directory: repeat-1 … repeat-N and repeats.json (mean, between-run sd, interval over runs; docs/repeats.md)'));
  registerCoordinatorOptions(run);
  run.addHelpText(
    'after',
    `
Examples:
  infermeter run                                         # the built-in simulator, demo load
  infermeter run --base-url http://localhost:8000 --request-rate 10 --num-prompts 500 \\
      --random-input-len 512 --random-output-len 256 --goodput ttft:500 tpot:50
  infermeter run --base-url http://localhost:8000 --endpoint /v1/chat/completions \\
      --concurrency 32 --duration 5m --warmup 30s --dataset-name sharegpt --dataset-path sg.json
  infermeter run --config run.yaml --request-rate 20     # a spec file, one value overridden

Results go to results/<timestamp>-<name>/ (spec.json, result.json, records.jsonl);
\`infermeter analyze\` recomputes them.`,
  );
  run.action(async (opts: Record<string, unknown>) => {
    io = withProxyFlags(io, opts);
    const distributed = coordinatorFlags(opts);
    if (opts.repeat !== undefined) {
      if (distributed) throw new UserError('--repeat with --distributed: not supported; repeat the distributed run yourself');
      setExit(await (await import('./repeat-command.js')).repeatCommand(await resolveSpec(opts, targetFromEnv(io)), opts.repeat, 'http', io));
      return;
    }
    setExit(
      distributed
        ? await (await import('./run-command.js')).distributedRunCommand(await resolveSpec(opts, targetFromEnv(io)), distributed, io)
        : await (await import('./run-command.js')).runCommand(await resolveSpec(opts, targetFromEnv(io)), io),
    );
  });

  const worker = program
    .command('worker')
    .description('one worker process of a distributed run: joins the coordinator (`run --distributed`) over NATS and sends its share of the load (docs/distributed.md)');
  registerRunSpecOptions(worker);
  registerFlags(worker, STAGE_FLAGS);
  registerWorkerOptions(worker);
  worker.addHelpText(
    'after',
    `
Give the worker the same --config and flags as the coordinator (their spec hashes must match):
  infermeter run --distributed nats://127.0.0.1:4222 --workers-expected 3 --num-prompts 300 --request-rate 30
  infermeter worker --nats nats://127.0.0.1:4222 --index 0 --num-prompts 300 --request-rate 30   # and --index 1, 2
A sweep's workers get its flags without the stage list (the coordinator announces each stage's load):
  infermeter sweep --distributed nats://127.0.0.1:4222 --workers-expected 3 --request-rates 10,20,40 --num-prompts 300
  infermeter worker --nats nats://127.0.0.1:4222 --index 0 --num-prompts 300                       # and --index 1, 2`,
  );
  worker.action(async (opts: Record<string, unknown>) => setExit(await (await import('./worker-command.js')).workerCommand(await resolveSpec(opts, { extraFlags: STAGE_FLAGS }), workerFlags(opts, io.env), withProxyFlags(io, opts))));

  const analyze = program
    .command('analyze')
    .description('recompute every figure from a saved run directory, sweep directory or records.jsonl')
    .argument('[run]', 'run directory, sweep directory (each stage re-judged) or records.jsonl')
    .addOption(new Option('--goodput <slo...>', 'per-request SLOs, e.g. ttft:500 tpot:50 (bare numbers: ms)'))
    .addOption(new Option('--slo <objective...>', `SLOs to judge the run by (exit 3 if one fails), e.g. 'p95(ttft) < 1.5s' (default: the run's own)`))
    .addOption(new Option('--vllm-json <file>', 'also write the figures under vllm bench serve --save-result keys'))
    .addOption(new Option('--junit <file>', 'also write the gates (validity, each --slo) as JUnit XML, one testcase per gate'))
    .addOption(new Option('--spans <file>', "join these spans (an OpenTelemetry Collector file exporter's OTLP/JSON lines) to the records instead of the run's own spans.jsonl"))
    .addOption(new Option('--json', 'print the result JSON instead of the summary table'));
  registerFlags(analyze, VLLM_JSON_FLAGS);
  registerFlags(analyze, COST_FLAGS);
  registerFlags(analyze, VALIDITY_FLAGS);
  analyze.action(async (path: string | undefined, opts: Record<string, unknown>) => setExit(await (await import('./analyze-command.js')).analyzeCommand(path, opts, io)));

  program
    .command('compare')
    .description('compare runs: is the load the same, and which figures changed beyond noise (bootstrap intervals)')
    .argument('<runs...>', 'baseline A, then B [C …]: run directories or vLLM result JSON files; or two groups of repeated runs, A1 A2 … -- B1 B2 …, or two repeat directories (run --repeat N)')
    .addOption(new Option('--force', 'give verdicts even when the load shapes or the server environments differ'))
    .addOption(new Option('--vary <fields>', 'environment fingerprint fields under test, e.g. engine_version,gpu (groups: gpu, engine, model; repeatable): else a server-side difference refuses a verdict (exit 2)').argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]))
    .addOption(new Option('--allow-invalid', `compare runs whose validity verdict says invalid (else: one line per such run, exit ${EXIT_CODES.INVALID_RUN})`))
    .addOption(new Option('--fail-on-regression <pct>', `exit ${EXIT_CODES.REGRESSION} when a figure is significantly worse by more than this, e.g. 5%`))
    .addOption(new Option('--fail-on-quality-drop <pts>', `exit ${EXIT_CODES.REGRESSION} when accuracy is significantly lower by more than this many points, e.g. 1%`))
    .addOption(new Option('--markdown [file]', 'also write a Markdown table for a pull request (to the file, else to stdout)'))
    .addOption(new Option('--html <file>', 'also write the comparison as a self-contained HTML page: overlaid CDFs, deltas with intervals, the load-shape check'))
    .addOption(new Option('--junit <file>', 'also write the gates as JUnit XML (one testcase per gate: validity of each run, each figure under --fail-on-regression, accuracy under --fail-on-quality-drop)'))
    .addOption(new Option('--json', 'print the comparison as JSON'))
    .addOption(new Option('--resamples <n>', 'bootstrap resamples (default 1000)'))
    .addOption(new Option('--seed <n>', 'seed of the resampling (default 0)'))
    .addOption(new Option('--confidence <pct>', 'family-wise confidence over all figures and accuracy together (default 95%; accuracy gets half of the error budget when both are judged, docs/compare.md)'))
    .addOption(new Option('--min-effect <pct>', 'smaller relative changes count as no change (default 2%)'))
    .addOption(new Option('--against-history', 'one run against the noise band of its spec\'s earlier runs in the history (3 or more; docs/history.md §Noise band)'))
    .addOption(new Option('--results-dir <dir>', 'with --against-history: the results folder holding the history (default results)'))
    .addHelpText('after', '\nDocs: docs/compare.md. Bad input (a missing run, the same run twice, another schema) exits 2.')
    .action(async (paths: string[], opts: Record<string, unknown>) => setExit(await (await import('./compare-command.js')).compareCommand(paths, opts, io)));

  program
    .command('report')
    .description('write the self-contained HTML report of a run directory (charts, verdicts, spec; opens offline)')
    .argument('<run>', 'run directory (with result.json and records.jsonl)')
    .addOption(new Option('--out <file>', 'where to write it (default RUN/report.html)'))
    .addHelpText('after', '\nA run writes RUN/report.html by itself unless given --no-report. When the history of the run\'s results folder holds a sweep of the same target and workload, the first screen also draws the run on that sweep\'s load curve. See docs/report.md.')
    .action(async (dir: string, opts: { out?: string }) => setExit(await (await import('./report-command.js')).reportCommand(dir, opts, io)));

  program
    .command('export')
    .description('export a run directory: per-request records and the summary as CSV, records as Parquet, a Markdown summary with SVG charts')
    .argument('<run>', 'run directory (with result.json and records.jsonl)')
    .requiredOption('--format <list>', 'csv, parquet, markdown, or several comma-separated')
    .addOption(new Option('--out-dir <dir>', 'where the files go (default: the run directory)'))
    .addHelpText('after', `\nFiles: records.csv + summary.csv, records.parquet, summary.md + summary-charts/*.svg. See docs/report.md.`)
    .action(async (dir: string, opts: { format: string; outDir?: string }) => setExit(await (await import('./export-command.js')).exportCommand(dir, opts, io)));

  program
    .command('plan')
    .description('capacity plan: from traffic and SLOs to replicas, GPUs and monthly cost, with the arithmetic shown')
    .addOption(new Option('--traffic <rate|run|trace>', 'traffic to serve: a rate (200rps, 12000/m), or the rate of a saved run or of a trace file'))
    .addOption(new Option('--slo <slo...>', `SLOs to meet (repeatable): 'p95(ttft) < 1.5s' 'p95(tpot) < 80ms' (docs/slos.md)`))
    .addOption(new Option('--goodput <slo...>', 'per-request SLOs, for goodput SLOs (e.g. ttft:500 tpot:50)'))
    .addOption(new Option('--headroom <pct>', 'capacity kept free on every replica (default 30%)'))
    .addOption(new Option('--hardware <list>', 'simulated GPUs to plan for, e.g. h100,h200,a100,mi300x (default h100)'))
    .addOption(new Option('--model <name>', 'simulated model profile (default llama-3.1-8b)'))
    .addOption(new Option('--tensor-parallel-size <list>', 'GPUs per replica to try, e.g. 1,2,4 (default: the smallest of 1, 2, 4, 8 that holds the weights)'))
    .addOption(new Option(SIM_PROFILE_FLAG.flag, SIM_PROFILE_FLAG.help))
    .addOption(new Option('--random-input-len <n>', 'input tokens per request in the simulated probes (default 1024)'))
    .addOption(new Option('--random-output-len <n>', 'output tokens per request in the simulated probes (default 128)'))
    .addOption(new Option('--probe-duration <duration>', 'arrivals per simulated probe (default 60s of virtual time)'))
    .addOption(new Option('--precision <pct>', 'relative precision of the rate and length searches (default 5%)'))
    .addOption(new Option('--seed <n>', 'seed of the probes\' arrivals (default 0)'))
    .addOption(new Option('--from <runs...>', 'capacity from a saved sweep, or saved runs of a server at increasing load, instead of the simulator'))
    .addOption(new Option('--gpus-per-replica <n>', 'with --from: GPUs one measured server uses (default 1)'))
    .addOption(new Option('--gpu-hour-cost <price>', 'price of one GPU-hour, for the monthly cost'))
    .addOption(new Option('--prices <file>', 'price table per GPU model (docs/prices.example.yaml)'))
    .addOption(new Option('--gpu-type <name>', 'with --from and --prices: the measured server\'s GPU model'))
    .addOption(new Option('--allow-invalid', 'with --from: accept invalid runs or stages (marked in the output); by default they are refused, exit 5'))
    .addOption(new Option('--json', 'print the plan as JSON'))
    .addHelpText('after', `\nExample:\n  infermeter plan --traffic 50rps --slo 'p95(ttft) < 1.5s' --slo 'p95(tpot) < 80ms' --hardware h100,h200 --model llama-3.1-8b --gpu-hour-cost 3\nDocs: docs/planning.md. An SLO no option can meet exits 2.`)
    .action(async (opts: Record<string, unknown>) => setExit(await (await import('./plan-command.js')).planCommand(opts, io)));

  program
    .command('schema')
    .description('print the JSON Schema of the run spec file (--config)')
    .action(async () => {
      const [{ z }, { RunSpecSchema }] = await Promise.all([import('zod'), import('../session/run-spec.js')]);
      io.stdout.write(`${JSON.stringify(z.toJSONSchema(RunSpecSchema, { io: 'input', unrepresentable: 'any' }), null, 2)}\n`);
      setExit(0);
    });

  program
    .command('watch')
    .description("observe a live service from its Prometheus metrics alone (no load): a live table of running/waiting requests, KV cache, token rates, server TTFT over a rolling window")
    .addOption(new Option('--metrics-url <url...>', "the service's Prometheus endpoint(s), one per replica"))
    .addOption(new Option('--dcgm-url <url...>', 'NVIDIA DCGM exporter endpoint(s) for GPU telemetry'))
    .addOption(new Option('--interval <duration>', 'refresh every (default 2s)'))
    .addOption(new Option('--window <duration>', 'rolling window the figures cover (default 1m)'))
    .addOption(new Option('--duration <duration>', 'stop after this long (default: until Ctrl-C)'))
    .addOption(new Option('--once', 'scrape twice one interval apart, print once, exit'))
    .addOption(new Option('--json', 'one JSON object per refresh (JSON lines) instead of the table'))
    .addOption(new Option('--slo <slo...>', "SLOs on ttft, tpot or e2el judged from the server's histograms at every refresh, e.g. 'p95(ttft) < 1.5s'; exit 3 when one ends below its attainment"))
    .action(async (opts: Record<string, unknown>) => setExit(await (await import('./watch-command.js')).watchCommand(opts, io)));
  registerHistoryCommands(program, io, setExit);
  const SWEEP_LOAD_FLAGS = LOAD_FLAGS.filter((f) => !['--request-rate', '--concurrency', '--warmup'].includes(f.flag.split(' ')[0]!));
  const sweep = program
    .command('sweep')
    .description('run stage after stage at rising load (rates, concurrencies, --auto, or --search for the highest load meeting the SLOs); print the curve with its saturation point and knee')
    .addOption(new Option('--config <file>', 'run spec file (YAML or JSON); flags override it; see `infermeter schema`'));
  sweep.optionsGroup('Stages:');
  registerSweepOptions(sweep);
  registerFlags(sweep, STAGE_FLAGS);
  sweep.optionsGroup('Target:');
  registerFlags(sweep, TARGET_FLAGS);
  registerProxyOptions(sweep);
  sweep.optionsGroup('Load of each stage:');
  registerFlags(sweep, SWEEP_LOAD_FLAGS);
  sweep.optionsGroup('Workload:');
  registerWorkloadOptions(sweep);
  sweep.optionsGroup('Server metrics, per stage (docs/observe.md):');
  registerFlags(sweep, OBSERVE_FLAGS.filter((f) => !f.flag.startsWith('--cold-start') && !f.flag.startsWith('--otlp') && f.flag !== '--spans <file>'));
  sweep.optionsGroup('Built-in simulator (no --base-url):');
  registerFlags(sweep, SIM_FLAGS);
  sweep.optionsGroup('Output:');
  registerFlags(sweep, OUTPUT_FLAGS);
  sweep.optionsGroup('Validity (a stage is judged as a run is):');
  registerFlags(sweep, VALIDITY_FLAGS);
  registerCoordinatorOptions(sweep);
  sweep.addHelpText('after', SWEEP_HELP);
  sweep.action(async (opts: Record<string, unknown>) => {
    io = withProxyFlags(io, opts);
    const distributed = coordinatorFlags(opts);
    const defaulted = opts.numPrompts === undefined && opts.duration === undefined && opts.config === undefined;
    // Workers build each stage from their own flags: a length the sweep picked for them would not match theirs.
    if (distributed && defaulted) throw new UserError('--distributed: give each stage\'s length with --num-prompts and/or --duration (the workers get the same flags)');
    // Without a per-stage length, each stage runs until SWEEP_STAGE_DEFAULTS says (the log says so too).
    if (defaulted) Object.assign(opts, { numPrompts: SWEEP_STAGE_DEFAULTS.num_prompts, duration: SWEEP_STAGE_DEFAULTS.duration });
    if (defaulted) io.stderr.write(`sweep: each stage runs ${SWEEP_STAGE_DEFAULTS.duration} or ${SWEEP_STAGE_DEFAULTS.num_prompts} requests, whichever ends first (change with --duration, --num-prompts)\n`);
    setExit(await (await import('./sweep-command.js')).sweepCommand(await resolveSpec(opts, { extraFlags: STAGE_FLAGS, demoDefaults: false }), opts, io, 'http', distributed));
  });

  const sim = program.command('sim').description('the simulated inference engine');
  // Virtual time simulates the kind too (embeddings: a prefill per batch, no tokens).
  const ENDPOINT_TYPE_FLAGS = TARGET_FLAGS.filter((f) => f.path.join('.') === 'target.endpoint_type');
  const simRun = sim
    .command('run')
    .description('run a workload through the simulated engine in virtual time (no HTTP): an hour of traffic in seconds')
    .addOption(new Option('--config <file>', 'run spec file (YAML or JSON); flags override it'))
    .addOption(new Option('--model <name>', 'simulated model profile (default llama-3.1-8b)'))
    .addOption(new Option('--endpoint <path>', 'API shape the workload is built for: /v1/completions or /v1/chat/completions'));
  registerFlags(simRun, ENDPOINT_TYPE_FLAGS);
  const shown = (f: { flag: string }) => !REFUSED_FLAGS.has(f.flag.split(' ')[0]!);
  simRun.optionsGroup('Load:');
  registerFlags(simRun, LOAD_FLAGS.filter(shown));
  simRun.optionsGroup('Workload:');
  registerWorkloadOptions(simRun);
  simRun.optionsGroup('Engine:');
  registerFlags(simRun, SIM_FLAGS.filter((f) => !f.flag.startsWith('--sim-') || f === SIM_PROFILE_FLAG));
  simRun.optionsGroup('Cost:');
  registerFlags(simRun, COST_FLAGS);
  simRun.optionsGroup('Output:');
  registerFlags(simRun, OUTPUT_FLAGS.filter(shown));
  // Registered but hidden, so giving one explains why it is refused (src/cli/sim-run-refusals.ts).
  for (const f of [...LOAD_FLAGS, ...OUTPUT_FLAGS, ...SIM_FLAGS].filter((f) => !shown(f))) simRun.addOption(new Option(f.flag, f.help).hideHelp());
  simRun.addOption(new Option('--repeat <n>', 'run the spec N times, each with its own seed (+1 per run) and prompt salt, into one repeat directory: repeat-1 … repeat-N and repeats.json (mean, between-run sd, interval over runs; docs/repeats.md)'));
  simRun.optionsGroup('Validity:');
  registerFlags(simRun, VALIDITY_FLAGS);
  simRun.action(async (opts: Record<string, unknown>) => {
    const s = await resolveSpec(opts, { simulatorOnly: true });
    refuseVirtualTimeSettings(opts, s);
    if (opts.repeat !== undefined) {
      setExit(await (await import('./repeat-command.js')).repeatCommand(s, opts.repeat, 'virtual', io));
      return;
    }
    setExit(await (await import('./sim-run-command.js')).simRunCommand(s, io));
  });

  const simSweep = sim
    .command('sweep')
    .description('a sweep of the simulated engine in virtual time: ten stages in seconds')
    .addOption(new Option('--config <file>', 'run spec file (YAML or JSON); flags override it'))
    .addOption(new Option('--model <name>', 'simulated model profile (default llama-3.1-8b)'))
    .addOption(new Option('--endpoint <path>', 'API shape the workload is built for: /v1/completions or /v1/chat/completions'));
  registerFlags(simSweep, ENDPOINT_TYPE_FLAGS);
  simSweep.optionsGroup('Stages:');
  registerSweepOptions(simSweep);
  registerFlags(simSweep, STAGE_FLAGS);
  simSweep.optionsGroup('Load of each stage:');
  registerFlags(simSweep, SWEEP_LOAD_FLAGS);
  simSweep.optionsGroup('Workload:');
  registerWorkloadOptions(simSweep);
  simSweep.optionsGroup('Engine:');
  registerFlags(simSweep, SIM_FLAGS.filter((f) => !f.flag.startsWith('--sim-') || f === SIM_PROFILE_FLAG));
  simSweep.optionsGroup('Output:');
  registerFlags(simSweep, OUTPUT_FLAGS);
  simSweep.optionsGroup('Validity (a stage is judged as a run is):');
  registerFlags(simSweep, VALIDITY_FLAGS);
  simSweep.addHelpText('after', SWEEP_HELP);
  simSweep.action(async (opts: Record<string, unknown>) =>
    setExit(await (await import('./sweep-command.js')).sweepCommand(await resolveSpec(opts, { simulatorOnly: true, extraFlags: STAGE_FLAGS }), opts, io, 'virtual')),
  );

  const simCalibrate = sim
    .command('calibrate')
    .description('fit the simulator\'s efficiencies and overheads to saved runs of a real server; writes a --sim-profile file')
    .argument('<run-dirs...>', 'saved run directories (records.jsonl + spec.json/result.json), ideally at several load levels')
    .addOption(new Option('--hardware <name>', 'GPU the runs were measured on (h100, a100, …)'))
    .addOption(new Option('--model <name>', 'model profile the server ran (llama-3.1-8b, …)'))
    .addOption(new Option('--out <file>', 'where to write the profile (YAML)'));
  simCalibrate.optionsGroup('The measured server\'s settings:');
  registerFlags(simCalibrate, ENGINE_FLAGS.filter((f) => !f.flag.startsWith('--sim-profile')));
  simCalibrate.addHelpText('after', `\nExample:\n  infermeter sim calibrate results/run-c1 results/run-c16 --hardware h100 --model llama-3.1-8b --out my-h100.yaml\n  infermeter sim run --hardware h100 --sim-profile my-h100.yaml --concurrency 32 …\nDocs: docs/simulator.md §Calibrate.`);
  simCalibrate.action(async (dirs: string[], opts: Record<string, unknown>) => setExit(await (await import('./sim-calibrate-command.js')).simCalibrateCommand(dirs, opts, io)));

  const simValidate = sim
    .command('validate')
    .description('replay saved runs of a real server in the simulator and print, per load level and figure, how far the twin is from them')
    .argument('<run-dirs...>', 'saved run directories (records.jsonl + spec.json/result.json)')
    .addOption(new Option('--hardware <name>', 'GPU the runs were measured on (default: the profile\'s)'))
    .addOption(new Option('--model <name>', 'model profile the server ran (default: the profile\'s)'));
  simValidate.optionsGroup('The measured server\'s settings:');
  registerFlags(simValidate, ENGINE_FLAGS);
  simValidate.addHelpText('after', `\nExample:\n  infermeter sim validate results/run-c1 results/run-c16 --sim-profile my-h100.yaml\nWith --sim-profile the error bar is recorded in the profile; plan --sim-profile prints it. Docs: docs/simulator.md §Validate.`);
  simValidate.action(async (dirs: string[], opts: Record<string, unknown>) => setExit(await (await import('./sim-validate-command.js')).simValidateCommand(dirs, opts, io)));

  const serve = sim
    .command('serve')
    .description('serve the simulated engine over HTTP (OpenAI-compatible API, /metrics)')
    .addOption(new Option('--host <host>', 'address to bind').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'port (0: a free one)').default('8000'))
    .addOption(new Option('--dialect <name>', 'wire quirks of a real server: vllm|llamacpp').default('vllm'))
    .addOption(new Option('--seed <n>', 'seed').default('0'))
    .addOption(new Option('--ground-truth <file>', 'append server-side admit and token-emit times per request (JSONL)'))
    .addOption(new Option('--otlp-traces-endpoint <url>', "export a span per request with its ground-truth timings, as vLLM's flag: http://host:4318/v1/traces (OTLP/HTTP protobuf) or grpc://host:4317 (OTLP/gRPC)"))
    .addOption(new Option('--tokenizer <name-or-path>', 'count prompt tokens with a real tokenizer (llama3, qwen3, cl100k_base, a tokenizer.json); default: the tokenizer-free estimate'))
    .addOption(new Option('--answers <dataset>', 'answer mode: answer the prompts of this dataset (eval, or a JSONL file with checks) with real answers at --accuracy etc. (docs/quality.md)'));
  serve.optionsGroup('Engine:');
  registerFlags(serve, SERVE_SIM_FLAGS);
  serve.optionsGroup('Fault injection:');
  for (const [flag, help] of FAULT_FLAGS) serve.addOption(new Option(flag, help));
  serve.action(async (opts: Record<string, string | undefined>) => setExit(await (await import('./sim-command.js')).simServeCommand(opts, io)));
  registerK8sCommand(program, io, setExit);
  program
    .command('completion')
    .description('print a shell completion script made from these command definitions: source <(infermeter completion bash)')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      io.stdout.write((await import('./completion.js')).completionScript(program, shell));
      setExit(0);
    });
  applyHelpLevel(program, helpAll);
  addExitCodeHelp(program);
  return program;
}

/** Every command's --help ends with the exit-code table (one source: errors/exit-codes.ts). */
function addExitCodeHelp(cmd: Command): void {
  cmd.addHelpText('after', `\n${EXIT_CODE_HELP}`);
  for (const sub of cmd.commands) addExitCodeHelp(sub);
}

/**
 * `compare A1 A2 -- B1 B2`: the argument parser drops a bare `--` (and reads what follows as
 * arguments only), so for compare it is replaced by the groups' mark (session/compare-groups.ts),
 * and flags after it still count.
 */
function markCompareGroups(argv: string[]): string[] {
  const at = argv.findIndex((a) => !a.startsWith('-'));
  if (argv[at] !== 'compare') return argv;
  const sep = argv.indexOf('--', at + 1);
  return sep < 0 ? argv : [...argv.slice(0, sep), GROUP_MARK, ...argv.slice(sep + 1)];
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let code = 0;
  let stopListening = (): void => {};
  const own = io.signal ? null : new AbortController();
  if (own) io = { ...io, signal: own.signal };
  try {
    const helpAll = helpAllRequested(argv);
    if (helpAll) argv = argv.map((a) => (a === '--help-all' ? '--help' : a));
    const program = buildProgram(io, (c) => (code = c), helpAll);
    program.hook('preAction', (_root, action) => {
      const underSim = action.parent?.name() === 'sim';
      if (own) {
        // Only run, sweep and worker send requests to a server: the others have none to cancel.
        // `sim run`'s virtual-time loop pauses every ~50 ms of wall time, so it hears the signal too.
        const sends = !underSim && ['run', 'sweep', 'worker'].includes(action.name());
        const doing = sends ? STOPPING_REQUESTS : underSim && action.name() === 'run' ? 'saving what was simulated' : null;
        stopListening = listenForStopSignals(own, (line) => io.stderr.write(`\n${line}\n`), doing);
      }
    });
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(markCompareGroups(argv), { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; commander already printed its one-line error otherwise.
      if (err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      return EXIT_CODES.USAGE;
    }
    if (err instanceof UserError) {
      io.stderr.write(`error: ${err.message}\n`);
      return EXIT_CODES.USAGE;
    }
    // Out of descriptors before a bound could say so (loading the CLI's own modules, a scrape): the limit, not a bug.
    if (isFdExhaustion(err) && !debugRequested(argv)) {
      io.stderr.write(`error: ${(err as NodeJS.ErrnoException).code}: ran out of open files: ${fdLimitPhrase()}\n`);
      return EXIT_CODES.USAGE;
    }
    io.stderr.write(reportInternalError(err, debugRequested(argv)));
    return EXIT_CODES.INTERNAL;
  } finally {
    stopListening();
  }
}
