/**
 * The server a run (or every stage of a sweep) talks to: the given --base-url, or the built-in
 * simulator started in-process; checked by pre-flight once. Shared by `run` and `sweep`.
 */
import { UserError } from '../errors/user-error.js';
import type { SimServer } from '../sim/index.js';
import { preflight } from '../client/preflight.js';
import { targetConfig } from '../client/target-config.js';
import type { RunResult } from '../report/result-json.js';
import { redactUrl } from '../util/redact.js';
import type { Workload } from '../workload/index.js';
import { startBuiltInSimulator } from './builtin-sim.js';
import type { RunSpec } from './run-spec.js';

export interface OpenTarget {
  baseUrl: string;
  model: string;
  simulated: boolean;
  ignoreEos: boolean;
  apiKey: string | null;
  preflight: Record<string, unknown> | null;
  /** result.json's `target` section. */
  describe(): RunResult['target'];
  close(): Promise<void>;
}

/**
 * Starts the built-in simulator when there is no --base-url (logging what it runs with
 * `simulatorNote`), then runs pre-flight unless --no-preflight.
 */
export async function openTarget(
  spec: RunSpec,
  workload: Workload,
  apiKey: string | null,
  log: (line: string) => void,
  simulatorNote: string | null,
  hooks: {
    /** Between starting the simulator (if any) and pre-flight, e.g. waiting for a cold start. */
    beforePreflight?: (baseUrl: string) => Promise<void>;
    /** When pre-flight got its first answer. */
    afterPreflight?: () => void;
  } = {},
): Promise<OpenTarget> {
  const simulated = spec.target.base_url === null;
  let sim: SimServer | null = null;
  let baseUrl = spec.target.base_url;
  let model = spec.target.model;
  let simulator: Record<string, unknown> | null = null;
  try {
    if (simulated) {
      const started = await startBuiltInSimulator(spec, workload);
      sim = started.server;
      baseUrl = sim.url;
      model = started.model;
      simulator = started.timing;
      log(`No --base-url: benchmarking the built-in simulated engine (${started.description}) at ${sim.url}`);
      if (simulatorNote) log(simulatorNote);
    }
    const ignoreEos = spec.target.ignore_eos ?? simulated;
    await hooks.beforePreflight?.(baseUrl!);
    let preflightInfo: Record<string, unknown> | null = null;
    if (spec.target.preflight) {
      const pf = await preflight({ ...targetConfig(spec.target, { baseUrl: baseUrl!, apiKey, ignoreEos, keepText: false, countTokens: undefined }), model });
      model = pf.model;
      preflightInfo = { ...pf };
      hooks.afterPreflight?.();
      log(`pre-flight ok: ${baseUrl}${spec.target.endpoint} serves ${pf.model}; probe TTFT ${pf.probe_ttft_ms?.toFixed(1) ?? '—'} ms; usage in stream: ${pf.usage_in_stream ? 'yes' : 'no'}`);
    } else if (model === null) {
      throw new UserError('--model: required with --no-preflight');
    }
    const finalModel = model!;
    const url = baseUrl!;
    return {
      baseUrl: url,
      model: finalModel,
      simulated,
      ignoreEos,
      apiKey,
      preflight: preflightInfo,
      describe: () => ({ base_url: simulated ? null : redactUrl(url), endpoint: spec.target.endpoint, model: finalModel, simulated, simulator, stream: spec.target.stream }),
      close: async () => {
        await sim?.close();
      },
    };
  } catch (err) {
    await sim?.close();
    throw err;
  }
}
