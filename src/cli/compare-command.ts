/**
 * `infermeter compare A B [C …]`: each of B, C, … against the baseline A. Inputs: run
 * directories (result.json + records.jsonl), or vLLM result files (figures only).
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { EXIT_CODES } from '../errors/exit-codes.js';
import { computeMetrics, measureRecords, measuredWindow } from '../metrics/index.js';
import { readRecordsFile } from '../store/records-file.js';
import { READABLE_RESULT_SCHEMAS, RESULT_SCHEMA, type RunResult } from '../report/result-json.js';
import { buildSample } from '../analysis/compare/bootstrap.js';
import { loadSettings, workloadSettings } from '../analysis/comparable-spec.js';
import { comparePair, type CompareOptions, type CompareSide, type PairComparison } from '../analysis/compare/compare.js';
import { figuresOfRun, figuresOfVllm } from '../analysis/compare/key-figures.js';
import { qualitySample } from '../analysis/compare/quality-delta.js';
import { renderCompareMarkdown, renderCompareText } from '../report/compare-report.js';
import { compareGates, gateLines, type Gate } from '../analysis/gates.js';
import { checkWritable, junitXml, writeJunit } from '../export/junit.js';
import { appendStepSummary, gatesMarkdown } from '../export/ci-summary.js';
import { writeFileSync } from 'node:fs';
import type { RequestRecord } from '../record/record.js';
import type { Slo } from '../metrics/index.js';
import type { CliIo } from './io.js';
import { infermeterVersion } from '../session/version.js';
import { buildCompareReport, loadCompareRun } from '../report/html/compare-html.js';
import { isSweepDir, readSweep } from '../session/saved-sweep.js';

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
  }
}

interface SideContext {
  target: Record<string, unknown> | null;
  /** result.json's load section (settings and what the run produced). */
  load: Record<string, unknown> | null;
  /** spec.json's load section (what the user set), when the directory has one. */
  specLoad: Record<string, unknown> | null;
  workload: Record<string, unknown> | null;
  slos: Slo[];
  /** The saved validity verdict. */
  validity: { valid?: unknown; reasons?: unknown } | null;
  cost: { gpu_hour_cost: number; gpus: number } | null;
}

/** A side from its records (a run's, or one sweep stage's) and the context they ran in. */
function sideFromRecords(label: string, records: RequestRecord[], ctx: SideContext): CompareSide {
  const metrics = computeMetrics(records, { slos: ctx.slos });
  const measure = measureRecords(records);
  const costPerS = ctx.cost ? (ctx.cost.gpu_hour_cost * ctx.cost.gpus) / 3600 : null;
  const allTokens = metrics.tokens.input_total + metrics.tokens.output_total;
  const costPer1m = costPerS !== null && allTokens > 0 ? ((costPerS * metrics.duration_s) / allTokens) * 1e6 : null;
  const ok = measure.filter((r) => r.status === 'ok');
  return {
    label,
    kind: 'run',
    shape: {
      target: ctx.target,
      load: ctx.load ? loadSettings(ctx.load, ctx.specLoad) : null,
      workload: workloadSettings(ctx.workload),
      outcome: { requests: measure.length, seed: ctx.load?.seed ?? null, prompt_salt: ctx.workload?.prompt_salt ?? null },
      input_lengths: ok.map((r) => r.prompt_tokens ?? r.client_prompt_tokens ?? 0),
      output_lengths: ok.map((r) => r.output_tokens),
    },
    figures: figuresOfRun(metrics, costPer1m),
    sample: buildSample(measure, measuredWindow(measure), ctx.slos.length > 0 ? ctx.slos : null, costPerS),
    quality: qualitySample(records),
    invalid: invalidReason(ctx.validity),
    // Request i got the workload's i-th prompt: the same workload and seed mean the same prompts.
    prompts: ctx.workload && ctx.load ? JSON.stringify({ workload: ctx.workload, seed: ctx.load.seed ?? null }) : null,
  };
}

function invalidReason(v: SideContext['validity']): string | null {
  if (!v || v.valid !== false) return null;
  const reasons = Array.isArray(v.reasons) ? v.reasons.filter((r): r is string => typeof r === 'string') : [];
  return reasons[0] ?? 'its validity verdict says invalid';
}

/**
 * An invalid run measured the client or a broken server, not the service: compare refuses it
 * (one line per run, exit 5) unless --allow-invalid. Returns the exit code, or null to go on.
 */
function refuseInvalid(sides: readonly CompareSide[], allow: boolean, io: CliIo, junit: (gates: Gate[]) => void): number | null {
  const invalid = sides.filter((s) => s.invalid);
  if (invalid.length === 0) return null;
  if (!allow) junit(validityGates(sides));
  for (const s of invalid) {
    io.stderr.write(`compare: ${s.label} is an invalid run (${s.invalid})${allow ? '; judged anyway (--allow-invalid)' : `; --allow-invalid compares it anyway`}\n`);
  }
  return allow ? null : EXIT_CODES.INVALID_RUN;
}

/** One validity gate per run side (vLLM files carry no verdict). */
function validityGates(sides: readonly CompareSide[]): Gate[] {
  return sides
    .filter((s) => s.kind === 'run')
    .map((s): Gate => ({ suite: s.label, name: 'validity', pass: !s.invalid, measured: s.invalid ? 'invalid' : 'valid', threshold: null, message: s.invalid ?? 'the run is valid' }));
}

/** spec.json's load section (what the user set), or null when the directory has none. */
function savedSpecLoad(dir: string): Record<string, unknown> | null {
  const path = join(dir, 'spec.json');
  if (!existsSync(path)) return null;
  const load = (readJson(path) as { load?: unknown } | null)?.load;
  return load && typeof load === 'object' ? (load as Record<string, unknown>) : null;
}

function runSide(dir: string, warn: (line: string) => void): CompareSide {
  const resultPath = join(dir, 'result.json');
  const recordsPath = join(dir, 'records.jsonl');
  if (!existsSync(resultPath)) throw new UserError(`${dir}: no result.json (not a run directory)`);
  const result = readJson(resultPath) as Partial<RunResult> & { schema?: unknown };
  if (typeof result.schema !== 'string' || !READABLE_RESULT_SCHEMAS.includes(result.schema)) {
    throw new UserError(`${dir}: result.json has schema ${JSON.stringify(result.schema ?? null)}; compare reads ${RESULT_SCHEMA} run directories, sweep directories and vLLM result files`);
  }
  if (!existsSync(recordsPath)) throw new UserError(`${dir}: no records.jsonl (compare needs the per-request records)`);
  const records = [...readRecordsFile(recordsPath, { warn }).records].sort((a, b) => a.id - b.id);
  return sideFromRecords(dir, records, {
    target: (result.target as unknown as Record<string, unknown>) ?? null,
    load: result.load ?? null,
    specLoad: savedSpecLoad(dir),
    workload: result.workload ?? null,
    slos: result.metrics?.goodput?.slos ?? [],
    validity: result.validity ?? null,
    cost: result.cost ?? null,
  });
}

/** One side per stage of a sweep directory, keyed by the stage's load (`8 req/s`, `c=16`). */
function sweepSides(dir: string, warn: (line: string) => void): Map<string, CompareSide> {
  const sweep = readSweep(dir, 'compare', warn);
  const out = new Map<string, CompareSide>();
  for (const st of sweep.stages) {
    const stageMetrics = sweep.result.stages.find((x) => x.index === st.index)?.metrics;
    out.set(
      st.label,
      sideFromRecords(`${dir} [stage ${st.index}: ${st.label}]`, st.records, {
        target: sweep.result.target,
        load: { ...sweep.result.load, stage: st.label },
        specLoad: savedSpecLoad(dir),
        workload: sweep.result.workload,
        slos: stageMetrics?.goodput?.slos ?? [],
        validity: sweep.result.stages.find((x) => x.index === st.index)?.validity ?? null,
        cost: null,
      }),
    );
  }
  return out;
}

function vllmSide(path: string, j: Record<string, unknown>): CompareSide {
  const lens = (k: string): number[] | null => (Array.isArray(j[k]) && (j[k] as unknown[]).every((x) => typeof x === 'number') ? (j[k] as number[]) : null);
  const rate = j.request_rate;
  return {
    label: path,
    kind: 'vllm',
    shape: {
      target: { model: j.model_id, endpoint: j.endpoint_type ?? j.backend },
      load: {
        request_rate: rate === 'inf' || rate === Infinity ? 'inf' : rate,
        burstiness: j.burstiness,
        max_concurrency: j.max_concurrency ?? null,
        num_prompts: j.num_prompts,
      },
      workload: null,
      input_lengths: lens('input_lens'),
      output_lengths: lens('output_lens'),
    },
    figures: figuresOfVllm(j),
    sample: null,
  };
}

function loadSide(path: string, warn: (line: string) => void): CompareSide {
  if (!existsSync(path)) throw new UserError(`${path}: no such run directory or file`);
  if (statSync(path).isDirectory()) return runSide(path, warn);
  const j = readJson(path);
  if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new UserError(`${path}: expected a JSON object`);
  const o = j as Record<string, unknown>;
  if (typeof o.schema === 'string' && READABLE_RESULT_SCHEMAS.includes(o.schema) && basename(path) === 'result.json') return runSide(dirname(path), warn);
  if (typeof o.schema === 'string') throw new UserError(`${path}: schema ${o.schema} is not one compare reads (a run directory, or a vLLM result file)`);
  if (!('request_throughput' in o) || !('completed' in o)) throw new UserError(`${path}: neither a run directory nor a vLLM result file (no request_throughput / completed keys)`);
  return vllmSide(path, o);
}

function parseShare(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(%)?$/.exec(text.trim());
  if (!m) throw new UserError(`${flag}: expected a percentage like 5% (or a share like 0.05), got "${text}"`);
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

function positiveInt(text: unknown, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < (flag === '--seed' ? 0 : 1)) throw new UserError(`${flag}: expected ${flag === '--seed' ? 'a non-negative' : 'a positive'} integer, got "${String(text)}"`);
  return n;
}

export async function compareCommand(paths: string[], opts: Record<string, unknown>, io: CliIo): Promise<number> {
  if (paths.length < 2) throw new UserError('compare: give at least two runs: a baseline A and one or more B …');
  const real = paths.map((p) => (existsSync(p) ? realpathSync(p).replace(/\/result\.json$/, '') : p));
  for (let i = 1; i < paths.length; i++) {
    const j = real.indexOf(real[i]!);
    if (j < i) throw new UserError(`compare: ${paths[i]} and ${paths[j]} are the same run; compare two different runs`);
  }
  const options: CompareOptions = {
    resamples: positiveInt(opts.resamples, '--resamples', 1000),
    seed: positiveInt(opts.seed, '--seed', 0),
    confidence: typeof opts.confidence === 'string' ? parseShare(opts.confidence, '--confidence') : 0.95,
    minEffect: typeof opts.minEffect === 'string' ? parseShare(opts.minEffect, '--min-effect') : 0.02,
    force: opts.force === true,
    failOnRegression: typeof opts.failOnRegression === 'string' ? parseShare(opts.failOnRegression, '--fail-on-regression') : null,
    failOnQualityDrop: typeof opts.failOnQualityDrop === 'string' ? parseShare(opts.failOnQualityDrop, '--fail-on-quality-drop') : null,
  };
  if (!(options.confidence > 0 && options.confidence < 1)) throw new UserError('--confidence: expected a level between 0% and 100%, e.g. 95%');
  const sweeps = paths.map((p) => existsSync(p) && statSync(p).isDirectory() && isSweepDir(p));
  if (sweeps.some(Boolean) && !sweeps.every(Boolean)) throw new UserError('compare: a sweep directory compares with other sweep directories (stage by stage), not with single runs');
  const working = () => io.stderr.write(`compare: ${options.resamples} bootstrap resamples per pair…\n`);
  const warn = (line: string) => io.stderr.write(`${line}\n`);
  let pairs: PairComparison[];
  const allowInvalid = opts.allowInvalid === true;
  const junitPath = typeof opts.junit === 'string' ? opts.junit : null;
  if (opts.junit === true) throw new UserError('--junit: give the file to write, e.g. --junit compare.xml');
  if (junitPath) checkWritable(junitPath, '--junit');
  const writeGates = (gates: Gate[]) => {
    if (junitPath) writeJunit(junitPath, junitXml('infermeter.compare', gates, { timestamp: new Date().toISOString() }));
  };
  let sides: CompareSide[];
  if (sweeps[0]) {
    const all = paths.map((p) => sweepSides(p, warn));
    sides = all.flatMap((m) => [...m.values()]);
    const refused = refuseInvalid(sides, allowInvalid, io, writeGates);
    if (refused !== null) return refused;
    working();
    pairs = all.slice(1).flatMap((b) => {
      const common = [...all[0]!.keys()].filter((k) => b.has(k));
      if (common.length === 0) throw new UserError('compare: the sweeps share no stage load (stages are paired by their rate or concurrency)');
      return common.map((k) => comparePair(all[0]!.get(k)!, b.get(k)!, options));
    });
  } else {
    sides = paths.map((p) => loadSide(p, warn));
    const refused = refuseInvalid(sides, allowInvalid, io, writeGates);
    if (refused !== null) return refused;
    working();
    pairs = sides.slice(1).map((b) => comparePair(sides[0]!, b, options));
  }
  const gates = [...validityGates(sides), ...compareGates(pairs, { failOnQualityDrop: options.failOnQualityDrop ?? null })];
  writeGates(gates);
  if (opts.json === true) io.stdout.write(`${JSON.stringify({ schema: 'infermeter.compare/1', pairs, gates }, null, 2)}\n`);
  else io.stdout.write(`${renderCompareText(pairs)}\n\nGates (failed first):\n${gateLines(gates).map((l) => `  ${l}`).join('\n')}\n`);
  const summary = `${gatesMarkdown(gates)}\n\n${renderCompareMarkdown(pairs)}\n`;
  const step = appendStepSummary(summary, io.env);
  if (step.error) io.stderr.write(`compare: warning: ${step.error}\n`);
  if (opts.markdown !== undefined) {
    const mdText = summary;
    if (typeof opts.markdown === 'string') {
      try {
        writeFileSync(opts.markdown, mdText);
      } catch (err) {
        throw new UserError(`--markdown ${opts.markdown}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      io.stderr.write(`compare: Markdown table written to ${opts.markdown}\n`);
    } else io.stdout.write(`\n${mdText}`);
  }
  if (typeof opts.html === 'string') {
    const runs = paths.map(loadCompareRun);
    const html = await buildCompareReport(pairs, runs, runs[0]!.rules, `infermeter ${infermeterVersion()}`);
    try {
      writeFileSync(opts.html, html);
    } catch (err) {
      throw new UserError(`--html ${opts.html}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    io.stderr.write(`compare: HTML report written to ${opts.html}\n`);
  }
  const regressions = pairs.flatMap((p) => p.figures.filter((f) => f.regression).map((f) => `${p.b}: ${f.figure.label}`));
  const qualityDrops = pairs.filter((p) => p.quality?.regression).map((p) => `${p.b}: accuracy ${((p.quality!.delta ?? 0) * 100).toFixed(1)} pts`);
  if (regressions.length > 0) io.stderr.write(`compare: significant regression beyond --fail-on-regression: ${regressions.join('; ')}\n`);
  if (qualityDrops.length > 0) io.stderr.write(`compare: significant accuracy drop beyond --fail-on-quality-drop: ${qualityDrops.join('; ')}\n`);
  if (regressions.length > 0 || qualityDrops.length > 0) return EXIT_CODES.REGRESSION;
  if (options.failOnQualityDrop != null && pairs.some((p) => p.quality === null)) {
    io.stderr.write('compare: note: --fail-on-quality-drop had no accuracy to judge for a pair whose runs carried no answer checks\n');
  }
  if (options.failOnRegression !== null && pairs.some((p) => !p.judged)) {
    io.stderr.write('compare: note: --fail-on-regression had nothing to judge for a pair without verdicts (see the note above)\n');
  }
  return EXIT_CODES.OK;
}
