/**
 * The server a run (or every stage of a sweep) talks to: the given --base-url, or the built-in
 * simulator started in-process; waited for (--cold-start), checked by pre-flight once, with the
 * prompt-length calibration and the context-length check. One path for `run` and `sweep`.
 */
import { randomBytes } from 'node:crypto';
import { UserError } from '../errors/user-error.js';
import type { SimServer } from '../sim/index.js';
import { preflight } from '../client/preflight.js';
import { targetConfig } from '../client/target-config.js';
import { isPluginPath, resolveEndpointKind } from '../client/endpoints/registry.js';
import type { RunResult } from '../report/result-json.js';
import { onAbort } from '../util/on-abort.js';
import { redactUrl } from '../util/redact.js';
import { DIRECT, proxyNote, type ProxySettings } from '../util/proxy.js';
import type { Workload } from '../workload/index.js';
import { startBuiltInSimulator } from './builtin-sim.js';
import { ColdStartStep } from './cold-start-step.js';
import { checkContextLength, defaultIgnoreEos, describePromptReuse } from './prepare-run.js';
import type { RunSpec } from './run-spec.js';

export interface OpenTarget {
  baseUrl: string;
  model: string;
  simulated: boolean;
  ignoreEos: boolean;
  apiKey: string | null;
  /** HTTP(S)_PROXY / NO_PROXY for every request to the target; DIRECT for the built-in simulator. */
  proxy: ProxySettings;
  preflight: Record<string, unknown> | null;
  /** Server tokens per estimated token from pre-flight's calibration (1 with a tokenizer or without calibration). */
  tokenScale: number;
  /** Tokens the server adds to every prompt (chat template, BOS), from the calibration; null when unknown. */
  promptOverheadTokens: number | null;
  /** Chat: tokens the template adds for each message after the first (pre-flight's calibration). */
  promptPerMessageTokens: number | null;
  /** The --cold-start measurement, when asked. */
  coldStart: ColdStartStep | null;
  /** result.json's `target` section. */
  describe(): RunResult['target'];
  /** The built-in simulator posts the spans of finished requests now (--otlp-receiver); a no-op for a real server. */
  flushSpans(): Promise<void>;
  close(): Promise<void>;
}

/** Within this of 1, the estimate counts as exact for the server (measurement noise of the calibration). */
const PROMPT_SCALE_DEADBAND = 0.01;

/**
 * A server may keep an earlier run's prompts in its prefix cache: a fresh salt per run changes the
 * words (not the lengths or the schedule). spec.json records it, so a run can be replayed.
 * Call before the workload is built.
 */
export function saltPrompts(spec: RunSpec): void {
  if (spec.target.base_url !== null && spec.workload.prompt_salt === null) spec.workload.prompt_salt = randomBytes(4).toString('hex');
}

/** Resolves with `p`, or with null as soon as `signal` aborts (at once if it has). */
export function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const detach = onAbort(signal, () => resolve(null));
    p.then(
      (v) => (detach(), resolve(v)),
      (err: unknown) => (detach(), reject(err)),
    );
  });
}

/**
 * Starts the built-in simulator when there is no --base-url (logging what it runs, then
 * `simulatorNote`), waits for a cold start when asked, then runs pre-flight (with calibration)
 * unless --no-preflight. Null when `signal` aborted before the load could start (nothing left open).
 */
export async function openTarget(
  spec: RunSpec,
  workload: Workload,
  apiKey: string | null,
  log: (line: string) => void,
  simulatorNote: string | null,
  signal?: AbortSignal,
  /** Where the built-in simulator exports its request spans (--otlp-receiver). */
  /** proxy: the run's HTTP(S)_PROXY settings (session/context.ts proxyOf), for a real server only. */
  extras: { otlpTracesEndpoint?: string; proxy?: ProxySettings } = {},
): Promise<OpenTarget | null> {
  const simulated = spec.target.base_url === null;
  let sim: SimServer | null = null;
  let baseUrl = spec.target.base_url;
  let model = spec.target.model;
  let simulator: Record<string, unknown> | null = null;
  // The simulator is never proxied; a real server follows HTTP(S)_PROXY / NO_PROXY, and says so first.
  const proxy = simulated ? DIRECT : (extras.proxy ?? DIRECT);
  const via = simulated ? null : proxyNote(baseUrl!, proxy);
  if (via) log(`target: ${redactUrl(baseUrl!)} ${via} (HTTP(S)_PROXY or --proxy; --no-proxy or NO_PROXY to go direct)`);
  try {
    if (simulated) {
      const started = await startBuiltInSimulator(spec, workload, log, extras.otlpTracesEndpoint);
      sim = started.server;
      baseUrl = sim.url;
      model = started.model;
      simulator = started.timing;
      if (signal?.aborted) return await closed(sim);
      log(`No --base-url: benchmarking the built-in simulated engine (${started.description}) at ${sim.url}`);
      if (simulatorNote) log(simulatorNote);
    }
    // Only asked of a kind whose API has it: otherwise exact lengths are not expected (the validity check is off).
    const ignoreEos = (spec.target.ignore_eos ?? defaultIgnoreEos(spec.workload, simulated)) && kindSendsIgnoreEos(spec.target);
    const coldStart = spec.observe.cold_start ? await ColdStartStep.wait(spec, baseUrl!, apiKey, signal, log, proxy) : null;
    let preflightInfo: Record<string, unknown> | null = null;
    let tokenScale = 1;
    let promptOverheadTokens: number | null = null;
    let promptPerMessageTokens: number | null = null;
    if (spec.target.preflight) {
      const pf = await unlessAborted(preflight({ ...targetConfig(spec.target, { baseUrl: baseUrl!, apiKey, ignoreEos, keepText: false, countTokens: undefined, proxy }), model }, { log, calibrate: true }), signal);
      if (pf === null) return await closed(sim);
      model = pf.model;
      preflightInfo = { ...pf };
      coldStart?.firstResponse();
      log(`pre-flight ok: ${baseUrl}${spec.target.endpoint} serves ${pf.model}; probe TTFT ${pf.probe_ttft_ms?.toFixed(1) ?? '—'} ms; usage in stream: ${pf.usage_in_stream ? 'yes' : 'no'}`);
      checkContextLength(workload, pf.max_model_len, `${baseUrl} (${pf.model})`);
      const cal = pf.prompt_calibration;
      promptOverheadTokens = cal?.overhead_tokens ?? null;
      promptPerMessageTokens = cal?.per_message_tokens ?? null;
      // A tokenizer given is trusted; the estimate is scaled to the server's count.
      if (cal && !spec.workload.tokenizer && Math.abs(cal.tokens_per_estimated_token - 1) > PROMPT_SCALE_DEADBAND) {
        tokenScale = cal.tokens_per_estimated_token;
        log(`prompt lengths: the server counts ${tokenScale.toFixed(3)} tokens per estimated token (${cal.source === 'tokenize' ? 'its /tokenize' : 'usage of two probes'}); synthetic prompts are sized to its count (--tokenizer to use a tokenizer instead)`);
      }
    } else if (model === null) {
      throw new UserError('--model: required with --no-preflight');
    }
    // Said once everything checked out, just before the load: an error stays one line.
    if (!simulated) describePromptReuse(spec, log);
    if (signal?.aborted) return await closed(sim);
    const finalModel = model!;
    const url = baseUrl!;
    return {
      baseUrl: url,
      model: finalModel,
      simulated,
      ignoreEos,
      apiKey,
      proxy,
      preflight: preflightInfo,
      tokenScale,
      promptOverheadTokens,
      promptPerMessageTokens,
      coldStart,
      describe: () => ({ base_url: simulated ? null : redactUrl(url), endpoint: spec.target.endpoint, model: finalModel, simulated, simulator, stream: spec.target.stream }),
      flushSpans: () => sim?.flushSpans() ?? Promise.resolve(),
      close: async () => {
        await sim?.close();
      },
    };
  } catch (err) {
    await sim?.close();
    throw err;
  }
}

async function closed(sim: SimServer | null): Promise<null> {
  await sim?.close();
  return null;
}

/** Whether the target's kind sends ignore_eos when asked (a plugin's kind: assumed so). */
function kindSendsIgnoreEos(target: RunSpec['target']): boolean {
  if (isPluginPath(target.endpoint_type)) return true;
  return resolveEndpointKind(target.endpoint_type, target.endpoint).sendsIgnoreEos !== false;
}
