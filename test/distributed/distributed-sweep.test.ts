/**
 * Distributed sweeps over a real nats-server (JetStream) on 127.0.0.1 with worker processes that
 * stay connected across stages: each stage sends exactly the single-process sweep's request set
 * (same ids, schedule, prompt and output lengths), and each stage's figures are the single-process
 * code path's over its merged records (`analyze` recomputes them to the last digit). A worker
 * killed in a stage gives that stage a partial-result verdict naming it; the stages after it are
 * shared by the workers left and are whole again. Every wait is on an event, never a fixed time.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { recordKey } from '../../src/distributed/protocol.js';
import type { RequestRecord } from '../../src/record/record.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import type { SweepResult } from '../../src/sweep/sweep-result.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

let nats: NatsServer;
beforeAll(async () => {
  nats = await startNats();
});
afterAll(async () => {
  await nats?.close();
});

function sweepDirOf(resultDir: string): string {
  const dirs = readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.'));
  expect(dirs).toHaveLength(1);
  return join(resultDir, dirs[0]!);
}

function load(dir: string): { records: RequestRecord[]; sweep: SweepResult } {
  return { records: readRecordsFile(join(dir, 'records.jsonl')).records, sweep: JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepResult };
}

/** What a request is, apart from when it happened. */
const identity = (r: RequestRecord) => `${r.stage}|${r.id}|${r.phase}|${r.scheduled_ms}|${r.client_prompt_tokens}|${r.requested_output_tokens}`;

function workers(args: string[], runId: string, count: number): CliProcess[] {
  return Array.from({ length: count }, (_, i) => spawnCli(['worker', '--nats', nats.url, '--run-id', runId, '--index', String(i), '--wait', '60s', '--workers', '0', ...args]));
}

const SIM = ['--sim-prefill-ms', '2', '--sim-per-token-ms', '3'];

describe('distributed sweep over NATS', () => {
  it('3 workers, 3 stages: each stage sends the single-process sweep’s requests; its figures are those of its merged records', async () => {
    const common = ['--num-prompts', '18', '--random-input-len', '16', '--random-output-len', '6', '--random-range-ratio', '0.5', '--seed', '11', '--stage-warmup', '2', ...SIM, '--progress', 'none', '--allow-invalid'];
    const dist = tempDir('dist-sweep');
    const coordinator = runCli(['sweep', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'sweep-same', '--start-delay', '1s', '--worker-timeout', '60s', '--request-rates', '15,30,inf', ...common, '--result-dir', dist, '--json']);
    const ws = workers(common, 'sweep-same', 3);
    const out = await coordinator;
    expect(out.code, out.stderr).toBe(0);
    for (const w of ws) expect((await w.exited).code, w.stderr).toBe(0);
    // One barrier per stage: every worker is ready for each stage once, on one connection.
    for (const w of ws) {
      expect(w.stderr.match(/joined sweep/g)).toHaveLength(1);
      expect(w.stderr.match(/stage \d started/g)).toEqual(['stage 1 started', 'stage 2 started', 'stage 3 started']);
    }

    const single = tempDir('single-sweep');
    const one = await runCli(['sweep', '--request-rates', '15,30,inf', ...common, '--workers', '1', '--result-dir', single, '--json']);
    expect(one.code, one.stderr).toBe(0);

    const d = load(sweepDirOf(dist));
    const s = load(sweepDirOf(single));
    expect(d.records).toHaveLength(54);
    // Each (worker, stage, request, attempt) once: the idempotent record ids do not collide across stages.
    expect(new Set(d.records.map((r) => recordKey(r.node!, r))).size).toBe(54);
    expect(d.records.map(identity).sort()).toEqual(s.records.map(identity).sort());
    for (const r of d.records) expect(r.node).toBe(r.id % 3);

    expect(d.sweep.stages.map((x) => x.load)).toEqual(s.sweep.stages.map((x) => x.load));
    expect(d.sweep.stages.map((x) => x.records)).toEqual([18, 18, 18]);
    // The figures of each stage are the single-process code's over that stage's records, to the last digit.
    const analyzed = await runCli(['analyze', sweepDirOf(dist), '--json']);
    expect(analyzed.code, analyzed.stderr).toBe(0);
    const again = JSON.parse(analyzed.stdout) as SweepResult;
    expect(again.stages.map((x) => x.metrics)).toEqual(d.sweep.stages.map((x) => x.metrics));
    for (const [i, stage] of d.sweep.stages.entries()) {
      expect(stage.metrics.requests.ok).toBe(s.sweep.stages[i]!.metrics.requests.ok);
      const nodes = (stage.distributed as { nodes: Array<{ node: number; status: string; records_received: number }> }).nodes;
      expect(nodes.map((n) => [n.node, n.status, n.records_received])).toEqual([
        [0, 'done', 6],
        [1, 'done', 6],
        [2, 'done', 6],
      ]);
    }
    expect(d.sweep.sweep.distributed).toMatchObject({ run_id: 'sweep-same', workers: 3 });
  });

  // This once hung in loaded full runs: worker 1 or 2 (no share in the 1-user baseline) joined
  // last and missed the baseline's announcement (test/distributed/lost-broadcasts.test.ts).
  it('--auto on 3 workers: the baseline (1 user) runs on one worker and sends every request; the probe is the single-process one', async () => {
    const runId = 'sweep-auto';
    const common = ['--num-prompts', '9', '--random-input-len', '8', '--random-output-len', '4', '--seed', '5', ...SIM, '--progress', 'none', '--allow-invalid'];
    const dist = tempDir('dist-auto');
    const coordinator = runCli(['sweep', '--distributed', nats.url, '--workers-expected', '3', '--run-id', runId, '--start-delay', '1s', '--worker-timeout', '60s', '--auto', '1', ...common, '--result-dir', dist, '--json']);
    const ws = workers(common, runId, 3);
    const out = await coordinator;
    expect(out.code, out.stderr).toBe(0);
    for (const w of ws) expect((await w.exited).code, w.stderr).toBe(0);
    expect(ws[1]!.stderr).toMatch(/worker 1: no share in stage 1 \(1 of the workers run it\)/);
    const single = tempDir('single-auto');
    expect((await runCli(['sweep', '--auto', '1', ...common, '--workers', '1', '--result-dir', single, '--json'])).code).toBe(0);
    const d = load(sweepDirOf(dist));
    const s = load(sweepDirOf(single));
    expect(d.sweep.stages.map((x) => [x.role, x.records])).toEqual([
      ['baseline', 9],
      ['probe', 9],
      ['auto', 9],
    ]);
    expect((d.sweep.stages[0]!.distributed as { workers: number }).workers).toBe(1);
    expect(d.records.filter((r) => r.stage === 0).every((r) => r.node === 0)).toBe(true);
    // The third stage's rate comes from measured throughputs, which differ between two real sweeps;
    // a closed loop's schedule is when the previous request ended, so it is left out.
    const firstTwo = (rs: RequestRecord[]) => rs.filter((r) => r.stage < 2).map((r) => identity({ ...r, scheduled_ms: r.stage === 0 ? 0 : r.scheduled_ms })).sort();
    expect(firstTwo(d.records)).toEqual(firstTwo(s.records));
    expect(d.sweep.auto!.rates).toHaveLength(1);
  });

  it('a stage that can no longer meet its SLO is stopped on every worker, as in a single-process sweep', async () => {
    // Every TTFT is ≥ 30 ms (the fixed prefill): p50 < 5 ms over 60 requests is hopeless at the
    // 31st completion, whichever worker it comes from; the rest of the stage is not sent.
    const common = ['--sim-prefill-ms', '30', '--sim-per-token-ms', '1', '--random-input-len', '16', '--random-output-len', '4', '--num-prompts', '60', '--seed', '2', '--progress', 'none', '--allow-invalid'];
    const coordinator = runCli(['sweep', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'sweep-stop', '--start-delay', '1s', '--worker-timeout', '60s', '--request-rates', '10', '--slo', 'p50(ttft) < 5ms', ...common, '--no-save', '--json']);
    const ws = workers(common, 'sweep-stop', 3);
    const out = await coordinator;
    expect(out.code, out.stderr).toBe(EXIT_CODES.SLO_FAILED);
    for (const w of ws) expect((await w.exited).code, w.stderr).toBe(0);
    const stage = (JSON.parse(out.stdout) as SweepResult).stages[0]!;
    expect(stage.stopped_early).toMatch(/"p50\(ttft\) < 5ms" can no longer be met: 31 of 31 values/);
    expect(stage.slos_pass).toBe(false);
    expect(stage.metrics.requests.ok).toBeGreaterThanOrEqual(31);
    expect(stage.metrics.requests.ok).toBeLessThan(60);
  });

  it('a worker killed in stage 2: that stage’s verdict is partial and names it; stage 3 runs whole on the 2 left', async () => {
    // 30 requests at 10 req/s per stage: worker 1 dies right after its first record of stage 2.
    const common = ['--num-prompts', '30', '--random-input-len', '8', '--random-output-len', '4', '--seed', '3', ...SIM, '--progress', 'none'];
    const resultDir = tempDir('killed-sweep');
    let finished = false;
    const coordinator = runCli(['sweep', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'sweep-killed', '--worker-timeout', '4s', '--start-delay', '1s', '--request-rates', '10,10.5,11', ...common, '--result-dir', resultDir, '--json']).finally(() => (finished = true));
    const ws = workers(common, 'sweep-killed', 3);
    // Waits for a record of worker 1 in stage 2 on disk.
    for (;;) {
      const dirs = existsSync(resultDir) ? readdirSync(resultDir).filter((x) => !x.startsWith('history') && !x.startsWith('.')) : [];
      const path = dirs.length > 0 ? join(resultDir, dirs[0]!, 'records.jsonl') : null;
      const lines = path && existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.endsWith('}')) : [];
      if (lines.some((l) => /"stage":1\b/.test(l) && /"node":1\b/.test(l))) break;
      if (finished) throw new Error('the sweep ended before worker 1 sent a record in stage 2');
      await new Promise((r) => setTimeout(r, 20));
    }
    ws[1]!.child.kill('SIGKILL');
    const out = await coordinator;
    // The stage that lost a worker is partial, hence invalid: the sweep exits 5 (one verdict, analysis/verdict.ts).
    expect(out.code, out.stderr).toBe(EXIT_CODES.INVALID_RUN);
    expect((await ws[0]!.exited).code).toBe(0);
    expect((await ws[2]!.exited).code).toBe(0);
    expect(out.stderr).toMatch(/worker 1 lost: stopped sending heartbeats/);

    const { records, sweep } = load(sweepDirOf(resultDir));
    expect(sweep.stages).toHaveLength(3);
    const [first, second, third] = sweep.stages;
    expect(first!.validity!.failed_checks).not.toContain('partial_result');
    expect(second!.validity!.valid).toBe(false);
    expect(second!.validity!.failed_checks[0]).toBe('partial_result');
    const got1 = new Set(records.filter((r) => r.stage === 1 && r.node === 1).map((r) => r.id));
    const missing = Array.from({ length: 10 }, (_, k) => 1 + 3 * k).filter((id) => !got1.has(id));
    expect(missing.length).toBeGreaterThan(0);
    expect(second!.validity!.reasons[0]).toMatch(/^partial result: worker 1 stopped sending heartbeats/);
    expect(second!.validity!.reasons[0]).toContain(`${missing.length} of its requests have no record (ids ${missing.slice(0, 8).join(', ')}`);
    // Nothing sent twice in the stage where it died; the rest of it is kept.
    const stage2 = records.filter((r) => r.stage === 1);
    expect(new Set(stage2.map((r) => r.id)).size).toBe(stage2.length);
    expect(stage2.filter((r) => r.node !== 1)).toHaveLength(20);
    // Stage 3: workers 0 and 2 share every request (k mod 2), so its request set is whole.
    const stage3 = records.filter((r) => r.stage === 2);
    expect(stage3.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (const r of stage3) expect(r.node).toBe(r.id % 2 === 0 ? 0 : 2);
    expect(third!.validity!.failed_checks).not.toContain('partial_result');
    expect((third!.distributed as { workers: number }).workers).toBe(2);
  });
});
