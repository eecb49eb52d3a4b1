/**
 * Capacity of one simulated configuration (GPU, model, tensor parallel) under SLOs, found in
 * virtual time: can it meet them at all, the highest sustainable request rate, the largest
 * concurrency, and the longest input and output at the planned load per replica.
 *
 * Every probe is the run `sim run` would make with the same flags: open-loop arrivals from the
 * load model (seeded), fixed input and output lengths, for `probe_duration_ms` of arrivals, so a
 * plan can be checked with `infermeter sim run --request-rate R --duration D --slo …`.
 */
import { LoadSpecSchema } from '../../config/schema.js';
import { sendTimes } from '../../load/send-times.js';
import type { RequestRecord } from '../../record/record.js';
import { engineConfig, hardwareProfile, modelProfile, numGpuBlocks, runVirtual, weightBytes, type VirtualRequest } from '../../sim/index.js';
import { LoadSearch } from '../../sweep/search.js';
import type { SearchRecord } from '../../report/plan-report.js';

/** Whether a probe's records meet every SLO, and the failing ones as `slo: value` lines. */
export type Judge = (records: RequestRecord[]) => { pass: boolean; failing: string[] };

export interface SimOption {
  hardware: string;
  model: string;
  tensor_parallel: number;
  engine: Record<string, number | boolean>;
}

export interface ProbeSettings {
  input_len: number;
  output_len: number;
  probe_duration_ms: number;
  seed: number;
  /** Relative precision of the rate and length searches. */
  precision: number;
}

export interface ProbeDetail {
  failing: string[];
  requests: number;
}

function judgeProbe(records: RequestRecord[], judge: Judge): { pass: boolean; detail: ProbeDetail } {
  const j = judge(records);
  return { pass: j.pass, detail: { failing: j.failing, requests: records.length } };
}

/**
 * The sweep's max-goodput search (src/sweep/search.ts: bracket by doubling, then bisect),
 * driven by simulator probes; `min`/`max` bound it.
 */
function search(probe: (x: number) => { pass: boolean; detail: ProbeDetail }, o: { start: number; min: number; max: number; precision: number; integer: boolean }): SearchRecord {
  const s = new LoadSearch(o);
  const probes: SearchRecord['probes'] = [];
  for (let x = s.next(); x !== null; x = s.next()) {
    const r = probe(x);
    probes.push({ x, pass: r.pass, detail: r.detail });
    s.record(x, r.pass);
  }
  const out = s.outcome;
  return { best: out.found, bracket: out.bracket, probes, capped: out.found !== null && out.bracket[1] === null, reason: out.reason };
}

/** Open-loop requests at `rate` for the probe duration (the schedule `sim run` would draw). */
export function openLoopRequests(rate: number, s: ProbeSettings, input = s.input_len, output = s.output_len): VirtualRequest[] {
  const load = LoadSpecSchema.parse({ request_rate: rate, duration_ms: s.probe_duration_ms, seed: s.seed });
  const times = sendTimes(load, undefined);
  const out: VirtualRequest[] = [];
  for (let i = 0; ; i++) {
    const at = times.next().value as number;
    if (at >= s.probe_duration_ms) break;
    out.push({ id: i, scheduled_ms: at, prompt_tokens: input, max_tokens: output });
  }
  return out;
}

function virtual(o: SimOption, requests: VirtualRequest[], closed?: number): RequestRecord[] {
  return runVirtual({ hardware: o.hardware, model: o.model, engine: { ...o.engine, tensor_parallel: o.tensor_parallel }, requests, ...(closed ? { closedLoopConcurrency: closed } : {}) }).records;
}

/** Why the configuration can never meet the SLOs (weights, context, latency floor), or null. */
export function infeasibility(o: SimOption, s: ProbeSettings, judge: Judge): string | null {
  const hw = hardwareProfile(o.hardware);
  const model = modelProfile(o.model);
  const cfg = engineConfig({ ...o.engine, tensor_parallel: o.tensor_parallel }, hw);
  const blocks = numGpuBlocks(hw, model, cfg);
  if (blocks < 1) {
    const usable = o.tensor_parallel * hw.mem_bytes * cfg.gpu_memory_utilization;
    return `weights don't fit: ${(weightBytes(model) / 1e9).toFixed(1)} GB of weights, ${(usable / 1e9).toFixed(1)} GB usable on ${o.tensor_parallel} × ${hw.id}`;
  }
  if (Math.ceil((s.input_len + s.output_len) / cfg.block_size) > blocks) {
    return `KV cache too small: one request of ${s.input_len + s.output_len} tokens needs more than the ${blocks * cfg.block_size} tokens it holds`;
  }
  // One request alone: the latency floor. If even that misses an SLO, no rate will meet it.
  const alone = virtual(o, [{ id: 0, scheduled_ms: 0, prompt_tokens: s.input_len, max_tokens: s.output_len }]);
  const j = judge(alone);
  if (!j.pass) {
    const floors = [...new Set(j.failing.map((f) => /\(([a-z_]+)\)/.exec(f)?.[1]?.toUpperCase() ?? 'latency'))].join(' and ');
    return `${floors} floor above the SLO: one request alone gives ${j.failing.join('; ')}`;
  }
  return null;
}

/** The highest request rate meeting the SLOs, by doubling from 1 req/s then bisection. */
export function searchRate(o: SimOption, s: ProbeSettings, judge: Judge): SearchRecord {
  return search((rate) => judgeProbe(virtual(o, openLoopRequests(rate, s)), judge), { start: 1, min: 1 / 64, max: 1e5, precision: s.precision, integer: false });
}

/** The largest closed-loop concurrency meeting the SLOs (each probe: max(200, 4N) requests). */
export function searchConcurrency(o: SimOption, s: ProbeSettings, judge: Judge, start: number): SearchRecord {
  const probe = (n: number) => {
    const count = Math.max(200, 4 * n);
    const reqs = Array.from({ length: count }, (_, i): VirtualRequest => ({ id: i, scheduled_ms: 0, prompt_tokens: s.input_len, max_tokens: s.output_len }));
    return judgeProbe(virtual(o, reqs, n), judge);
  };
  return search(probe, { start: Math.max(1, start), min: 1, max: 4096, precision: s.precision, integer: true });
}

/**
 * The longest input (or output) meeting the SLOs at `rate`, the other length fixed. Searched as a
 * continuous load to the relative precision, each probe rounding the length down to whole tokens.
 */
export function searchLength(o: SimOption, s: ProbeSettings, judge: Judge, rate: number, which: 'input' | 'output'): SearchRecord {
  const model = modelProfile(o.model);
  const cfg = engineConfig({ ...o.engine, tensor_parallel: o.tensor_parallel }, hardwareProfile(o.hardware));
  const maxLen = (cfg.max_model_len > 0 ? cfg.max_model_len : model.max_model_len) - (which === 'input' ? s.output_len : s.input_len);
  const probe = (x: number) => {
    const len = Math.floor(x);
    const reqs = which === 'input' ? openLoopRequests(rate, s, len, s.output_len) : openLoopRequests(rate, s, s.input_len, len);
    return judgeProbe(virtual(o, reqs), judge);
  };
  const r = search(probe, { start: which === 'input' ? s.input_len : s.output_len, min: 1, max: maxLen, precision: s.precision, integer: false });
  return { ...r, best: r.best === null ? null : Math.floor(r.best), probes: r.probes.map((p) => ({ ...p, x: Math.floor(p.x) })) };
}
