/**
 * What goes wrong in a distributed run, over a real nats-server on 127.0.0.1: a worker killed
 * mid-run (partial-result verdict naming it and its missing requests, everything received kept,
 * nothing sent twice), a worker with another spec (refused, named), a coordinator killed and
 * restarted (it resumes from the JetStream stream; no record is written twice). Every wait is on
 * an event: a line printed, a record on disk, a process's exit.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import type { RequestRecord } from '../../src/record/record.js';
import type { RunResult } from '../../src/report/result-json.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { runCli } from '../helpers/cli.js';
import { spawnCli, type CliProcess } from '../helpers/cli-process.js';
import { startNats, type NatsServer } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';

let nats: NatsServer;
let sim: SimServer;
beforeAll(async () => {
  nats = await startNats();
  // Outside the coordinator, so it outlives a coordinator that is killed.
  sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 2, perTokenMs: 4 }, modelName: 'm' });
});
afterAll(async () => {
  await sim?.close();
  await nats?.close();
});

function worker(args: string[], runId: string, index: number): CliProcess {
  return spawnCli(['worker', '--nats', nats.url, '--run-id', runId, '--index', String(index), '--wait', '60s', '--workers', '0', ...args]);
}

/** Resolves with the run directory once records.jsonl under `resultDir` holds a line matching `pattern`. */
async function recordOnDisk(resultDir: string, pattern: RegExp, done: () => boolean): Promise<string> {
  for (;;) {
    const dirs = existsSync(resultDir) ? readdirSync(resultDir).filter((d) => !d.startsWith('history') && !d.startsWith('.')) : [];
    const path = dirs.length > 0 ? join(resultDir, dirs[0]!, 'records.jsonl') : null;
    if (path && existsSync(path) && pattern.test(readFileSync(path, 'utf8'))) return join(resultDir, dirs[0]!);
    if (done()) throw new Error(`the run ended before a record matching ${pattern} was written under ${resultDir}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const results = (dir: string) => ({
  records: readRecordsFile(join(dir, 'records.jsonl')).records,
  result: JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult,
});

describe('distributed run: failures', () => {
  it('a worker killed mid-run: the partial-result verdict names it and its missing requests; the rest is kept', async () => {
    // 60 requests over 6 s: worker 1 is killed right after its first record, long before its last.
    const load = ['--base-url', sim.url, '--num-prompts', '60', '--request-rate', '10', '--random-input-len', '8', '--random-output-len', '4', '--seed', '3', '--progress', 'none'];
    const resultDir = tempDir('killed');
    let finished = false;
    const coordinator = runCli(['run', '--distributed', nats.url, '--workers-expected', '3', '--run-id', 'killed', '--worker-timeout', '4s', '--start-delay', '1s', ...load, '--result-dir', resultDir, '--json']).finally(() => (finished = true));
    const ws = [0, 1, 2].map((i) => worker(load, 'killed', i));
    const dir = await recordOnDisk(resultDir, /"node":1\b/, () => finished);
    ws[1]!.child.kill('SIGKILL');
    const out = await coordinator;
    expect((await ws[0]!.exited).code).toBe(0);
    expect((await ws[2]!.exited).code).toBe(0);
    expect((await ws[1]!.exited).signal).toBe('SIGKILL');

    expect(out.code).toBe(EXIT_CODES.INVALID_RUN);
    const { records, result } = results(dir);
    const v = result.validity!;
    expect(v.failed_checks[0]).toBe('partial_result');
    expect(v.failed_checks.filter((c) => c === 'partial_result')).toHaveLength(1);
    const reason = v.reasons[0]!;
    expect(reason).toMatch(/^partial result: worker 1 stopped sending heartbeats/);
    // Its missing requests are those of its share (ids ≡ 1 mod 3) that have no record.
    const got1 = new Set(records.filter((r) => r.node === 1).map((r) => r.id));
    const missing = Array.from({ length: 20 }, (_, k) => 1 + 3 * k).filter((id) => !got1.has(id));
    expect(missing.length).toBeGreaterThan(0);
    expect(reason).toContain(`${missing.length} of its requests have no record (ids ${missing.slice(0, 8).join(', ')}`);
    // Everything received is kept; the other workers' shares are whole; no request twice.
    for (const node of [0, 2]) expect(records.filter((r) => r.node === node).map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, k) => node + 3 * k));
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(result.metrics.requests.total).toBe(records.length);
    const nodes = (result.client as { distributed: { nodes: Array<{ node: number; status: string }> } }).distributed.nodes;
    expect(nodes.map((n) => n.status)).toEqual(['done', 'lost', 'done']);
    // The summary says it too.
    expect(out.stderr).toMatch(/worker 1 lost: stopped sending heartbeats/);
  });

  it('a worker with another spec is refused, named; the run does not start', async () => {
    const load = ['--base-url', sim.url, '--num-prompts', '20', '--request-rate', '10', '--random-input-len', '8', '--random-output-len', '4', '--seed', '3', '--progress', 'none'];
    const resultDir = tempDir('mismatch');
    const coordinator = spawnCli(['run', '--distributed', nats.url, '--workers-expected', '2', '--run-id', 'mismatch', ...load, '--result-dir', resultDir]);
    const good = worker(load, 'mismatch', 0);
    await coordinator.waitForStderr(/worker 0 joined/);
    // One flag different: longer prompts.
    const bad = worker(load.map((a, i) => (load[i - 1] === '--random-input-len' ? '9' : a)), 'mismatch', 1);
    const [c, g, b] = await Promise.all([coordinator.exited, good.exited, bad.exited]);
    expect(b.code).toBe(EXIT_CODES.USAGE);
    expect(bad.stderr).toMatch(/error: worker 1: refused by the coordinator: its spec \(hash [0-9a-f]{16}\) differs from the coordinator's \(hash [0-9a-f]{16}\)/);
    expect(c.code).toBe(EXIT_CODES.USAGE);
    expect(coordinator.stderr).toMatch(/error: worker 1 \([^)]+\) refused: its spec \(hash [0-9a-f]{16}\) differs/);
    // The worker that was waiting is told, and sends nothing.
    expect(g.code).toBe(EXIT_CODES.USAGE);
    expect(good.stderr).toMatch(/worker 0: the run was stopped before it started: worker 1 .*refused/);
    expect(existsSync(resultDir) ? readdirSync(resultDir) : []).toEqual([]);
  });

  it('a coordinator killed mid-run and restarted resumes from the stream: every record once', async () => {
    const load = ['--base-url', sim.url, '--num-prompts', '40', '--request-rate', '10', '--random-input-len', '8', '--random-output-len', '4', '--seed', '9', '--progress', 'none'];
    const resultDir = tempDir('restart');
    const args = ['run', '--distributed', nats.url, '--workers-expected', '2', '--run-id', 'restart', '--start-delay', '1s', ...load, '--result-dir', resultDir];
    const first = spawnCli(args);
    let firstDone = false;
    void first.exited.then(() => (firstDone = true));
    const ws = [0, 1].map((i) => worker(load, 'restart', i));
    const dir = await recordOnDisk(resultDir, /"id":/, () => firstDone);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = spawnCli([...args, '--json']);
    const end = await second.exited;
    expect(second.stderr).toMatch(/resuming run restart/);
    expect(end.code === 0 || end.code === EXIT_CODES.INVALID_RUN).toBe(true);
    expect((await ws[0]!.exited).code).toBe(0);
    expect((await ws[1]!.exited).code).toBe(0);
    const { records, result } = results(dir);
    expect(records.map((r: RequestRecord) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, k) => k));
    expect(result.validity!.failed_checks).not.toContain('partial_result');
    expect((result.client as { distributed: { resumed: boolean } }).distributed.resumed).toBe(true);
    expect(result.metrics.requests.total).toBe(40);
  });
});
