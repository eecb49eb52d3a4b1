/**
 * The columnar record store of long virtual-time runs: its views read back exactly the records
 * given to it, and every figure computed from them — metrics, per-task metrics, the validity
 * verdict, cost, the report's distributions — equals the figure computed from the plain records
 * of the same run (the in-memory path).
 */
import { describe, expect, it } from 'vitest';
import { buildResult, type FinishInput } from '../../src/session/finish-run.js';
import { resolveRunSpec } from '../../src/cli/resolve-spec.js';
import { prepareRun } from '../../src/session/prepare-run.js';
import { simulate } from '../../src/session/simulate.js';
import type { RequestRecord } from '../../src/record/record.js';
import { runDistributions } from '../../src/report/data/distributions.js';
import { StepTimeline } from '../../src/sim/step-timeline.js';
import { VirtualRecords } from '../../src/sim/virtual-records.js';
import { emptyRecord } from '../../src/record/record.js';
import { recordToJsonLine, recordToJsonLineParts } from '../../src/record/jsonl.js';

const FIELDS = [
  'id', 'phase', 'stage', 'worker', 'task', 'session', 'turn', 'scheduled_ms', 'sent_ms', 'first_token_ms', 'chunk_ms', 'end_ms',
  'prompt_tokens', 'output_tokens', 'requested_output_tokens', 'token_source', 'client_prompt_tokens', 'status', 'error_class',
  'http_status', 'finish_reason', 'error_message', 'output_text', 'first_reasoning_ms', 'first_answer_ms', 'reasoning_tokens',
  'attempt', 'retried', 'retry_after_ms', 'quality',
] as const;

/** A record's fields as a plain object (undefined optional fields left out), for comparison. */
function plain(r: RequestRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const v = r[f];
    if (v !== undefined) out[f] = f === 'chunk_ms' ? Array.from(v as Float64Array) : v;
  }
  return out;
}

async function bothPaths(args: Record<string, unknown>) {
  const spec = resolveRunSpec({ noSave: true, ...args }, { simulatorOnly: true });
  const model = spec.target.model ?? spec.sim.model;
  const inMemory = (await simulate(spec, await prepareRun(spec, () => {}, { lengthsOnly: true }), model)).records;
  const timeline = new StepTimeline();
  const store = new VirtualRecords(timeline);
  const streamed = await simulate(spec, await prepareRun(spec, () => {}, { lengthsOnly: true }), model, undefined, { onRecord: (r) => store.add(r), timeline });
  expect(streamed.records).toEqual([]);
  return { spec, model, inMemory, views: store.records(), store };
}

function result(spec: ReturnType<typeof resolveRunSpec>, model: string, records: RequestRecord[]) {
  const input: FinishInput = {
    spec,
    dir: null,
    records,
    run: { name: 'x', started_at: 'then', ended_at: 'now', interrupted: false, driver: 'virtual', monotonic_origin_ns: null },
    target: { base_url: null, endpoint: spec.target.endpoint, model, simulated: true, simulator: null, stream: true },
    load: {},
    workload: {},
    health: null,
    client: {},
    ignoreEos: true,
    clientTokenizer: 'estimate',
    cost: { gpu_hour_cost: 2.5, gpus: 1, gpu_type: 'h100', currency: 'USD', price_source: 'test' } as unknown as FinishInput['cost'],
  };
  const { infermeter_version: _v, ...rest } = buildResult(input);
  return rest;
}

/**
 * The columns' figures against the in-memory ones: equal, except ITL's mean and standard
 * deviation, which the columns sum per step (value × the records spanning it, chunk-gaps.ts)
 * rather than per token, so they may differ in the last bits. Its count, extremes and
 * percentiles are those of the same multiset: equal.
 */
function expectSameFigures(views: unknown, plainFigures: unknown, path = ''): void {
  if (/itl_ms\.(mean|std)$/.test(path) && typeof views === 'number' && typeof plainFigures === 'number') {
    expect(Math.abs(views - plainFigures), path).toBeLessThanOrEqual(1e-12 * Math.abs(plainFigures));
    return;
  }
  if (views !== null && plainFigures !== null && typeof views === 'object' && typeof plainFigures === 'object') {
    expect(Object.keys(views).sort(), path).toEqual(Object.keys(plainFigures).sort());
    for (const k of Object.keys(views)) expectSameFigures((views as Record<string, unknown>)[k], (plainFigures as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  expect(views, path).toEqual(plainFigures);
}

describe('VirtualRecords: long virtual runs held in columns', () => {
  it('views read back the records exactly; figures from them equal the in-memory figures', async () => {
    const { spec, model, inMemory, views, store } = await bothPaths({
      requestRate: '40', numPrompts: '600', randomInputLen: '900', randomOutputLen: '120', randomRangeRatio: '0.5', warmup: '50', seed: '9',
      // ITL objectives: evaluated from per-step weighted gaps on the views, per gap on the plain records.
      slo: ['p99(itl) <= 12ms over 2s >= 50%', 'p50(itl) <= 10ms', 'max(itl) <= 40ms over 3s >= 90%', 'p99.9(itl) <= 30ms'],
      maxNumSeqs: '256', // below the KV capacity, so nothing is preempted (H100's default, 1024, overfills the cache at this rate)
    });
    expect(views).toHaveLength(600);
    const byId = (rs: RequestRecord[]) => [...rs].sort((a, b) => a.id - b.id).map(plain);
    expect(byId(views)).toEqual(byId(inMemory));
    expect(store.plainCount).toBe(0); // all fit the columns: no preemption, no failure
    expect(views.some((r) => r.phase === 'warmup')).toBe(true);
    expect(Math.max(...views.map((r) => r.prompt_tokens ?? 0))).toBeGreaterThan(900); // the flags took
    expect(Math.max(...views.map((r) => r.chunk_ms.length))).toBeGreaterThan(120);
    const [fromViews, fromPlain] = [result(spec, model, views), result(spec, model, inMemory)];
    expect(fromViews.slos!.map((o) => o.metric)).toEqual(['itl_ms', 'itl_ms', 'itl_ms', 'itl_ms']);
    expect(fromViews.slos!.filter((o) => o.windows.total > 1)).toHaveLength(2);
    expectSameFigures(fromViews, fromPlain);
    expect(runDistributions(views)).toEqual(runDistributions(inMemory));
  });

  it('records that do not fit the columns (preempted, rejected) are kept whole, and figures still agree', async () => {
    const { spec, model, inMemory, views, store } = await bothPaths({
      requestRate: 'inf', numPrompts: '300', randomInputLen: '3000', randomOutputLen: '400', randomRangeRatio: '0.9', seed: '4', reasoningTokens: '50',
      numGpuBlocksOverride: '900',
    });
    const byId = (rs: RequestRecord[]) => [...rs].sort((a, b) => a.id - b.id).map(plain);
    expect(byId(views)).toEqual(byId(inMemory));
    expect(store.plainCount).toBeGreaterThan(0);
    expect(store.plainCount).toBeLessThan(300);
    expect(views.some((r) => (r.reasoning_tokens ?? 0) > 0)).toBe(true);
    expectSameFigures(result(spec, model, views), result(spec, model, inMemory));
  });

  it("records.jsonl lines built from the timeline's formatted steps are the plain writer's lines", async () => {
    const spec = resolveRunSpec({ noSave: true, requestRate: '30', numPrompts: '300', randomInputLen: '500', randomOutputLen: '80', reasoningTokens: '10' }, { simulatorOnly: true });
    const timeline = new StepTimeline();
    const store = new VirtualRecords(timeline);
    let stretched = 0;
    await simulate(spec, await prepareRun(spec, () => {}, { lengthsOnly: true }), spec.sim.model, undefined, {
      timeline,
      onRecord: (r) => {
        const first = store.add(r);
        if (first === null || first < 0) return;
        stretched++;
        const { head, tail } = recordToJsonLineParts(r)!;
        expect(head + timeline.json(first, r.chunk_ms.length) + tail).toBe(recordToJsonLine(r));
      },
    });
    expect(stretched).toBe(300);
  });

  it('keeps failures, text, retries and odd values as given', () => {
    const store = new VirtualRecords(new StepTimeline());
    const failed = { ...emptyRecord(1, 5), status: 'error' as const, error_class: 'http_4xx' as const, http_status: 400, error_message: 'too long' };
    const texted = { ...emptyRecord(2, 6), output_text: 'hi' };
    const fractional = { ...emptyRecord(3, 7), prompt_tokens: 2.5 };
    const noded = { ...emptyRecord(5, 9), node: 2 };
    const messages = { ...emptyRecord(6, 9), prompt_messages: 2 };
    const ok = { ...emptyRecord(4, 8), task: 'chat', turn: 2, prompt_tokens: 10, client_prompt_tokens: 11, output_tokens: 0, finish_reason: 'length' };
    for (const r of [failed, texted, fractional, noded, messages, ok]) store.add(r);
    expect(store.plainCount).toBe(5);
    const all = store.records();
    expect(all.map(plain)).toEqual([failed, texted, fractional, noded, messages, ok].map(plain));
    expect([all[3]!.node, all[4]!.prompt_messages]).toEqual([2, 2]);
  });
});
