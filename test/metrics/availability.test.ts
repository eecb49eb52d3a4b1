/** Client-seen outages and availability (src/metrics/defs/availability.ts): hand-made records, then a real restart. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findOutages, MIN_OUTAGE_FAILURES } from '../../src/metrics/defs/availability.js';
import { computeMetrics } from '../../src/metrics/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { renderOutages } from '../../src/report/console-summary.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { firstRecordWritten, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rec } from './make-record.js';

const ok = (sent: number) => rec({ sent_ms: sent, chunks: [sent + 5, sent + 10] });
const refused = (sent: number) => rec({ status: 'error', error_class: 'connect', sent_ms: sent, end_ms: sent + 1 });
const e500 = (sent: number) => rec({ status: 'error', error_class: 'http_5xx', http_status: 503, sent_ms: sent, end_ms: sent + 2 });

describe('outages from records', () => {
  it('three or more unavailability failures between ok sends make one outage, from the first failed send to the next ok send', () => {
    // ok at 0 and 100; refused at 200, 300; 503 at 400; a 429 and a timeout at 450/460 (neither end nor extend it); ok at 500.
    const records = [
      ok(0),
      ok(100),
      refused(200),
      refused(300),
      e500(400),
      rec({ status: 'error', error_class: 'http_429', http_status: 429, sent_ms: 450, end_ms: 451 }),
      rec({ status: 'timeout', error_class: 'timeout', sent_ms: 460, end_ms: 990 }),
      ok(500),
      ok(600),
    ];
    const outages = findOutages(records, 1000);
    expect(outages).toEqual([{ from_ms: 200, to_ms: 500, failed: 3, by_error_class: { connect: 2, http_5xx: 1 }, recovered: true }]);
    // Window: first send 0 → last end 990 (the timeout) = 0.99 s; down 0.3 s.
    const m = computeMetrics(records);
    expect(m.availability!.downtime_s).toBeCloseTo(0.3, 12);
    expect(m.availability!.value).toBeCloseTo(1 - 0.3 / 0.99, 12);
    expect(renderOutages(m.availability)).toMatch(/^Outages: 1, down 0\.30 s, availability 69\.70% .*\n {2}0\.20 s → 0\.50 s: 3 failed \(connect 2, http_5xx 1\)$/);
  });

  it(`fewer than ${MIN_OUTAGE_FAILURES} in a row is a fault, not an outage; an ok send between failures breaks the streak`, () => {
    expect(findOutages([ok(0), refused(10), refused(20), ok(30), refused(40), refused(50), ok(60)], 100)).toEqual([]);
    const m = computeMetrics([ok(0), refused(10), refused(20), ok(30)]);
    expect(m.availability).toMatchObject({ value: 1, downtime_s: 0, outages: [] });
    expect(renderOutages(m.availability)).toBeNull();
  });

  it('a run that ends down: the outage lasts to the end of the window, not recovered', () => {
    const records = [ok(0), refused(100), refused(200), refused(300)];
    const o = findOutages(records, 400);
    expect(o).toEqual([{ from_ms: 100, to_ms: 400, failed: 3, by_error_class: { connect: 3 }, recovered: false }]);
  });

  it('superseded retry attempts are not counted (the request is its last attempt)', () => {
    const records = [ok(0), { ...refused(10), retried: true }, refused(20), refused(30), ok(40)];
    expect(findOutages(records, 50)).toEqual([]);
  });

  it('the order is send order, whatever order the records came in', () => {
    const records = [ok(500), refused(300), ok(0), refused(200), refused(250)];
    expect(findOutages(records, 600).map((o) => [o.from_ms, o.to_ms])).toEqual([[200, 500]]);
  });

  it('availability is a run metric an SLO can name', async () => {
    const { OBJECTIVE_METRICS } = await import('../../src/metrics/objective-catalog.js');
    expect(OBJECTIVE_METRICS.get('availability')).toMatchObject({ kind: 'run', unit: 'ratio' });
  });
});

describe('a server restart during a run', () => {
  // The server goes down and comes back on events of the run, not at fixed times: a run started
  // late (a loaded machine) once sent nothing into a gap timed from the server's start. Down once
  // it has answered 10 requests; back once the run has recorded 3 refused connections, with
  // most of the run's 3 s (120 requests at 40 req/s) still to send.
  let sim: SimServer | null = null;
  afterAll(async () => {
    await sim?.close();
  });

  it('is one outage of refused connections, recovered, in result.json and the summary', async () => {
    const timing = { kind: 'fixed' as const, prefillMs: 1, perTokenMs: 1 };
    sim = await startSimServer({ timing, collectGroundTruth: true });
    const { url, port } = sim;
    const resultDir = tempDir('availability');
    let finished = false;
    const run = runCli([
      'run', '--base-url', url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--num-prompts', '120', '--request-rate', '40',
      '--random-input-len', '16', '--random-output-len', '4', '--result-dir', resultDir, '--json', '--allow-invalid', '--progress', 'none', '--no-metrics', '--workers', '0',
    ]).finally(() => (finished = true));
    const poll = async (what: string, cond: () => boolean): Promise<void> => {
      while (!cond()) {
        if (finished) throw new Error(`the run ended before ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const first = sim;
    await poll('the server answered 10 requests', () => first.groundTruth.length >= 10);
    await first.close();
    const dir = await firstRecordWritten(resultDir, () => finished);
    const refused = () => readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"error_class":"connect"')).length;
    await poll('3 refused connections were recorded', () => refused() >= 3);
    sim = await startSimServer({ timing, port });
    const out = await run;
    const result = JSON.parse(out.stdout) as RunResult;
    const a = result.metrics.availability!;
    expect(a.outages.length).toBeGreaterThanOrEqual(1);
    const refusedCount = result.metrics.requests.by_error_class.connect ?? 0;
    expect(refusedCount).toBeGreaterThanOrEqual(3);
    expect(a.outages.reduce((s, o) => s + (o.by_error_class.connect ?? 0), 0)).toBe(refusedCount);
    expect(a.outages.every((o) => o.recovered)).toBe(true);
    expect(a.value!).toBeLessThan(1);
  }, 60_000);
});
