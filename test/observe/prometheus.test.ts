/**
 * --prometheus-url against a real Prometheus server (Debian's `prometheus`, which .ci/run
 * installs) scraping the simulated engine on 127.0.0.1. The run waits for a scrape past its
 * end, so the counters' deltas are again exactly the tokens the records count.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { freePort, prometheusBinary, until } from '../helpers/prometheus.js';
import { expectCompleted, runCli } from '../helpers/cli.js';

describe('server series from a Prometheus server', () => {
  let sim: SimServer;
  let prom: ChildProcess;
  let dir: string;
  let promUrl: string;

  beforeAll(async () => {
    const bin = prometheusBinary();
    sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' } });
    dir = mkdtempSync(join(tmpdir(), 'infermeter-prom-'));
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: sim\n    static_configs:\n      - targets: ['${new URL(sim.url).host}']\n`,
    );
    prom = spawn(bin, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
    // Ready, and at least one scrape of the simulator stored (the run's baseline).
    await until('prometheus to scrape the simulator', async () => {
      const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent('up{job="sim"}')}`);
      const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
      return body.data.result[0]?.value[1] === '1' ? true : null;
    });
  }, 90_000);

  afterAll(async () => {
    prom?.kill('SIGTERM');
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the run span with range queries; totals match the records', async () => {
    const out = await runCli([
      'run', '--base-url', sim.url, '--no-preflight', '--model', 'sim-llama-3.1-8b', '--ignore-eos',
      '--num-prompts', '30', '--request-rate', '20', '--random-input-len', '128', '--random-output-len', '16',
      '--prometheus-url', promUrl, '--no-save', '--json', '--progress', 'none', '--workers', '0',
    ]);
    expectCompleted(out);
    const r = JSON.parse(out.stdout) as RunResult;
    const server = r.server;
    expect(server?.mode).toBe('prometheus');
    expect(server?.sources[0]?.engines).toEqual(['vllm', 'dcgm']);
    expect(server?.series.generation_tokens_per_s?.total).toBe(r.metrics.tokens.output_total);
    expect(server?.series.ttft_s?.count).toBe(30);
    expect(server?.series.gpu_mem_used_bytes?.max).toBeGreaterThan(16e9);
  }, 90_000);
});
