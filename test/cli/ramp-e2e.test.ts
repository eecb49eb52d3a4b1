/**
 * --ramp-up / --ramp-down end to end: in virtual time (sim run, open and closed loop) and over
 * real HTTP with worker threads. Assertions use the pure schedule and event order, never
 * wall-clock thresholds.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoadSpecSchema } from '../../src/config/schema.js';
import { sendTimes } from '../../src/load/send-times.js';
import { userWindow } from '../../src/load/ramp.js';
import type { RequestRecord } from '../../src/record/record.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function records(args: string[]): Promise<{ recs: RequestRecord[]; result: { metrics: { requests: { total: number } } } }> {
  const dir = mkdtempSync(join(tmpdir(), 'infermeter-ramp-'));
  dirs.push(dir);
  // Only the records are judged here: a short ramped run may measure nothing, or a busy client
  // fall behind, and either makes the run invalid (exit 5) without saying anything about ramps.
  const out = await runCli([...args, '--result-dir', dir, '--json', '--progress', 'none', '--allow-invalid']);
  expect(out.code, out.stderr).toBe(0);
  const recs = readRecordsFile(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'records.jsonl')).records.sort((a, b) => a.id - b.id);
  return { recs, result: JSON.parse(out.stdout) as { metrics: { requests: { total: number } } } };
}

/** The pure schedule the spec implies, as many as `n`. */
function schedule(load: Record<string, unknown>, n: number): number[] {
  const it = sendTimes(LoadSpecSchema.parse(load), undefined);
  const out: number[] = [];
  for (let r = it.next(); !r.done && out.length < n; r = it.next()) out.push(r.value);
  return out;
}

describe('ramps in virtual time (sim run)', () => {
  it('open loop: sends the ramped schedule exactly, labels ramp phases, and counts only the rest', async () => {
    const { recs, result } = await records([
      'sim', 'run', '--request-rate', '20', '--duration', '6s', '--ramp-up', '2s', '--ramp-down', '2s', '--seed', '4',
      '--random-input-len', '64', '--random-output-len', '4',
    ]);
    const want = schedule({ request_rate: 20, duration_ms: '6s', ramp_up_ms: '2s', ramp_down_ms: '2s', seed: 4 }, 10_000);
    expect(recs.map((r) => r.scheduled_ms)).toEqual(want.map((t) => Math.round(t * 1000) / 1000));
    // 20/s over W(E) = 6 − 1 − 1 = 4 s of constant-rate time: about 80 requests (Poisson).
    expect(recs.length).toBeGreaterThan(50);
    expect(recs.length).toBeLessThan(115);
    for (const r of recs) expect(r.phase).toBe(r.scheduled_ms < 2000 ? 'ramp_up' : r.scheduled_ms >= 4000 ? 'ramp_down' : 'measure');
    const measured = recs.filter((r) => r.phase === 'measure').length;
    expect(measured).toBeGreaterThan(0);
    expect(result.metrics.requests.total).toBe(measured);
    // the rate rises: fewer arrivals in the first second of the ramp than in its second
    const inWindow = (a: number, b: number) => recs.filter((r) => r.scheduled_ms >= a && r.scheduled_ms < b).length;
    expect(inWindow(0, 1000)).toBeLessThan(inWindow(1000, 2000));
  });

  it('closed loop: user k starts at U·k/N, so no more than k+1 are ever in flight before user k+1 starts', async () => {
    const { recs } = await records([
      'sim', 'run', '--concurrency', '4', '--ramp-up', '4s', '--num-prompts', '60', '--random-input-len', '64', '--random-output-len', '64',
    ]);
    expect(recs).toHaveLength(60);
    const sends = recs.map((r) => r.sent_ms);
    for (let k = 0; k < 4; k++) expect(sends).toContain(userWindow({ up_ms: 4000, down_ms: 0, end_ms: null }, k, 4).start_ms);
    for (const r of recs) {
      const t = r.sent_ms;
      const inFlight = recs.filter((o) => o.sent_ms <= t && o.end_ms > t).length;
      expect(inFlight).toBeLessThanOrEqual(Math.min(4, Math.floor(t / 1000) + 1));
      expect(r.phase).toBe(t < 4000 ? 'ramp_up' : 'measure');
    }
  });

  it('closed loop ramp-down: users leave one by one, none sends at or after the end of the duration', async () => {
    // 4 users, 10 s, ramp-down 4 s: user k sends no new request from 10,000 − 1,000·k ms on.
    const { recs } = await records([
      'sim', 'run', '--concurrency', '4', '--duration', '10s', '--ramp-down', '4s', '--num-prompts', '2000', '--random-input-len', '64', '--random-output-len', '64',
    ]);
    expect(recs.length).toBeLessThan(2000);
    for (const r of recs) {
      const t = r.sent_ms;
      expect(t).toBeLessThan(10_000);
      expect(r.phase).toBe(t >= 6000 ? 'ramp_down' : 'measure');
      // Only users k < a can send at or after 10,000 − 1,000·a, one request in flight each: so at
      // most a requests sent since then are in flight, a = users still active at t.
      if (t >= 6000) {
        const active = Array.from({ length: 4 }, (_, k) => userWindow({ up_ms: 0, down_ms: 4000, end_ms: 10_000 }, k, 4)).filter((w) => t < w.stop_ms).length;
        const sentSinceFall = recs.filter((o) => o.sent_ms <= t && o.end_ms > t && o.sent_ms >= 10_000 - 1000 * active).length;
        expect(sentSinceFall).toBeLessThanOrEqual(active);
      }
    }
    const lastQuarter = recs.filter((r) => r.sent_ms >= 9000).length;
    const firstQuarter = recs.filter((r) => r.sent_ms >= 6000 && r.sent_ms < 7000).length;
    expect(lastQuarter).toBeLessThan(firstQuarter);
  });

  it('rejects ramps that cannot apply, naming the flag', async () => {
    const inf = await runCli(['sim', 'run', '--no-save', '--ramp-up', '10s', '--num-prompts', '10']);
    expect(inf.code).toBe(2);
    expect(inf.stderr).toMatch(/--ramp-up.*finite --request-rate/);
    const down = await runCli(['sim', 'run', '--no-save', '--ramp-down', '10s', '--request-rate', '5', '--num-prompts', '10']);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/--ramp-down needs --duration/);
    const bad = await runCli(['sim', 'run', '--no-save', '--ramp-up', 'soon', '--request-rate', '5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--ramp-up/);
  });
});

describe('ramps over HTTP with worker threads', () => {
  it('multi-turn sessions with --concurrency: users start through the ramp, so no turn is sent before its user started', async () => {
    const { recs } = await records([
      'run', '--endpoint', '/v1/chat/completions', '--sim-prefill-ms', '3', '--sim-per-token-ms', '1', '--session-turns', '2', '--think-time', '5',
      '--concurrency', '4', '--ramp-up', '800ms', '--num-prompts', '24', '--random-input-len', '16', '--random-output-len', '3', '--workers', '2',
    ]);
    expect(recs).toHaveLength(24);
    for (const r of recs) {
      const t = r.sent_ms;
      const inFlight = recs.filter((o) => o.sent_ms <= t && o.end_ms > t).length;
      expect(inFlight).toBeLessThanOrEqual(Math.min(4, Math.floor(t / 200) + 1));
    }
    expect(recs.filter((r) => r.phase === 'ramp_up').length).toBeGreaterThan(0);
  });

  it('open loop, 2 workers: the merged records carry exactly the ramped schedule and its phases', async () => {
    const { recs } = await records([
      'run', '--sim-prefill-ms', '2', '--sim-per-token-ms', '1', '--request-rate', '40', '--duration', '2s', '--ramp-up', '600ms', '--ramp-down', '600ms',
      '--random-input-len', '32', '--random-output-len', '3', '--seed', '11', '--workers', '2',
    ]);
    const want = schedule({ request_rate: 40, duration_ms: '2s', ramp_up_ms: '600ms', ramp_down_ms: '600ms', seed: 11 }, 10_000);
    expect(recs.map((r) => r.id)).toEqual(want.map((_, i) => i));
    expect(recs.map((r) => r.scheduled_ms)).toEqual(want.map((t) => Math.round(t * 1000) / 1000));
    expect(new Set(recs.map((r) => r.worker))).toEqual(new Set([0, 1]));
    for (const r of recs) expect(r.phase).toBe(r.scheduled_ms < 600 ? 'ramp_up' : r.scheduled_ms >= 1400 ? 'ramp_down' : 'measure');
  });

  it('closed loop, 2 workers: a user never sends before its start, so in-flight requests never exceed the users started', async () => {
    const { recs } = await records([
      'run', '--sim-prefill-ms', '5', '--sim-per-token-ms', '2', '--concurrency', '4', '--ramp-up', '800ms', '--num-prompts', '40',
      '--random-input-len', '32', '--random-output-len', '5', '--workers', '2',
    ]);
    expect(recs).toHaveLength(40);
    for (const r of recs) {
      const t = r.sent_ms;
      const inFlight = recs.filter((o) => o.sent_ms <= t && o.end_ms > t).length;
      // users start at 0, 200, 400, 600 ms; timers only ever fire late, which lowers the count
      expect(inFlight).toBeLessThanOrEqual(Math.min(4, Math.floor(t / 200) + 1));
      expect(r.phase).toBe(r.scheduled_ms < 800 ? 'ramp_up' : 'measure');
    }
    expect(recs.some((r) => r.phase === 'ramp_up')).toBe(true);
  });
});
