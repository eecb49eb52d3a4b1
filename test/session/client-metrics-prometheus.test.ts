/**
 * `--metrics-port` scraped by a real Prometheus server (Debian's `prometheus`, which .ci/run
 * installs) during a run against the simulated engine on 127.0.0.1: the scraped series are the
 * documented names, and no scraped count exceeds what the run's result says it did.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { freePort, prometheusBinary, until } from '../helpers/prometheus.js';
import { runCli } from '../helpers/cli.js';

describe('--metrics-port scraped by Prometheus', () => {
  let sim: SimServer;
  let prom: ChildProcess;
  let dir: string;
  let promUrl: string;
  let metricsPort: number;

  const query = async (q: string): Promise<number | null> => {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
    const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
    const v = body.data.result[0]?.value[1];
    return v === undefined ? null : Number(v);
  };

  beforeAll(async () => {
    const bin = prometheusBinary();
    sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' } });
    dir = mkdtempSync(join(tmpdir(), 'infermeter-prom-client-'));
    const port = await freePort();
    metricsPort = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n  - job_name: infermeter\n    static_configs:\n      - targets: ['127.0.0.1:${metricsPort}']\n`,
    );
    prom = spawn(bin, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    // Prometheus is scraping the (not yet listening) target: `up` exists, at 0.
    await until('prometheus to try the metrics port', async () => ((await query('up{job="infermeter"}')) !== null ? true : null), 90_000);
  }, 120_000);

  afterAll(async () => {
    prom?.kill('SIGTERM');
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the documented series while the run goes on', async () => {
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos',
      '--num-prompts', '60', '--request-rate', '6', '--random-input-len', '64', '--random-output-len', '16',
      '--metrics-port', `127.0.0.1:${metricsPort}`, '--no-save', '--json', '--progress', 'none', '--allow-invalid', '--no-metrics',
    ]);
    expect([0, 5]).toContain(out.code);
    expect(out.stderr).toContain(`client metrics at http://127.0.0.1:${metricsPort}/metrics`);
    const r = JSON.parse(out.stdout) as RunResult;
    expect(await query('max_over_time(up{job="infermeter"}[10m])')).toBe(1);
    const sent = await query('max_over_time(infermeter_requests_sent{job="infermeter"}[10m])');
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(60);
    const ok = await query('max_over_time(infermeter_requests_total{job="infermeter",phase="measure",status="ok"}[10m])');
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(r.metrics.requests.ok);
    const ttftCount = await query('max_over_time(infermeter_ttft_seconds_count{job="infermeter"}[10m])');
    expect(ttftCount).toBeGreaterThan(0);
    expect(ttftCount).toBeLessThanOrEqual(r.metrics.latency.ttft_ms.count);
    expect(await query('max_over_time(infermeter_itl_seconds_count{job="infermeter"}[10m])')).toBeGreaterThan(0);
  }, 120_000);

  it('a port in use is one warning and the run goes on', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const busy = (blocker.address() as { port: number }).port;
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--num-prompts', '3', '--request-rate', 'inf',
      '--random-input-len', '16', '--random-output-len', '4', '--metrics-port', `127.0.0.1:${busy}`, '--no-save', '--json', '--progress', 'none', '--allow-invalid', '--no-metrics',
    ]);
    blocker.close();
    expect([0, 5]).toContain(out.code);
    expect(out.stderr).toMatch(new RegExp(`--metrics-port 127\\.0\\.0\\.1:${busy}: cannot listen \\(EADDRINUSE\\); the run goes on`));
    expect((JSON.parse(out.stdout) as RunResult).metrics.requests.ok).toBe(3);
  }, 60_000);

  it('a bad address is exit 2 with one line', async () => {
    const out = await runCli(['run', '--base-url', sim.url, '--metrics-port', 'nowhere:99999', '--num-prompts', '1', '--no-save']);
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('error: --metrics-port: "nowhere:99999": port 99999 is above 65535');
  });
});
