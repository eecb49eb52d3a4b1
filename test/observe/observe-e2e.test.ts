/**
 * Server-side observation end to end: the CLI against the simulated engine over HTTP, its
 * /metrics scraped during the run. Assertions use the simulator's own counts (ground truth),
 * not timing: every token the records count must appear in the scraped counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import type { RunResult } from '../../src/report/result-json.js';
import { Scraper } from '../../src/observe/scraper.js';
import { observationOf } from '../../src/observe/observation.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { startTestServer } from '../helpers/servers.js';

async function complete(url: string, maxTokens: number): Promise<void> {
  const res = await fetch(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim-llama-3.1-8b', prompt: 'hello world '.repeat(50), max_tokens: maxTokens, ignore_eos: true }) });
  await res.json();
}

describe('server metrics during a run', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' } });
  });
  afterAll(() => sim.close());

  it("scrapes the simulator's vLLM and DCGM series; counters match the records exactly", async () => {
    const out = await runCli([
      'run', '--base-url', sim.url, '--model', 'sim-llama-3.1-8b', '--ignore-eos',
      '--num-prompts', '40', '--request-rate', 'inf', '--random-input-len', '256', '--random-output-len', '32',
      '--scrape-interval', '200ms', '--no-save', '--json', '--progress', 'none', '--workers', '0',
    ]);
    expectCompleted(out);
    const r = JSON.parse(out.stdout) as RunResult;
    const server = r.server;
    expect(server).toBeTruthy();
    if (!server) return;
    expect(server.sources[0]?.engines).toEqual(['vllm', 'dcgm']);
    expect(server.sources[0]?.failed).toBe(0);
    const s = server.series;
    // The first scrape precedes the load and the last follows it, so the counters' deltas are every token served.
    expect(s.generation_tokens_per_s?.total).toBe(r.metrics.tokens.output_total);
    expect(s.prompt_tokens_per_s?.total).toBe(r.metrics.tokens.input_total);
    expect(s.ttft_s?.count).toBe(40);
    expect(s.queue_time_s?.count).toBe(40);
    expect(s.gpu_mem_used_bytes?.max).toBeGreaterThan(16e9); // 8B bf16 weights alone are 16 GB
    expect(server.restarts).toBe(0);
    expect(server.missing).toContain('gpu_power_w');
  });

  it('gauges show the load the engine holds at the scrape', async () => {
    const scraper = new Scraper({ targets: [{ url: `${sim.url}/metrics` }], intervalMs: 60_000, warn: () => {} });
    await scraper.start(); // baseline: idle
    const inflight = Array.from({ length: 6 }, () => complete(sim.url, 150));
    // event order, not time: scrape once the engine runs all six
    while (sim.stats().running < 6) await new Promise((r) => setTimeout(r, 5));
    await scraper.scrapeNow();
    await Promise.all(inflight);
    const { snapshots, sources } = await scraper.stop();
    const s = observationOf(snapshots, sources, 'scrape', 60_000, -Infinity, Infinity).series;
    expect(s.running?.max).toBe(6);
    expect(s.kv_usage?.max).toBeGreaterThan(0);
    expect(s.gpu_util?.max).toBeGreaterThan(0);
    expect(s.generation_tokens_per_s?.total).toBe(6 * 150);
  });

  it('counts a server restart from the counters going back to zero', async () => {
    const lines: string[] = [];
    const scraper = new Scraper({ targets: [{ url: `${sim.url}/metrics` }], intervalMs: 60_000, warn: (l) => lines.push(l) });
    await scraper.start(); // baseline
    await complete(sim.url, 8);
    await sim.restart(50);
    await complete(sim.url, 8);
    const { snapshots, sources } = await scraper.stop();
    const obs = observationOf(snapshots, sources, 'scrape', 60_000, -Infinity, Infinity);
    expect(snapshots).toHaveLength(2);
    expect(obs.restarts).toBe(1);
    // after the restart the counter restarted from 0: only the second request's tokens are in its window
    expect(obs.series.generation_tokens_per_s?.total).toBe(8);
    expect(lines).toEqual([]);
  });

  it('an unreachable, non-Prometheus or unknown metrics endpoint is one warning; the run goes on', async () => {
    const html = await startTestServer((req, res) => {
      if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>login</html>');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('http_requests_total 5\n');
      }
    });
    try {
      const out = await runCli([
        'run', '--base-url', sim.url, '--model', 'sim-llama-3.1-8b', '--num-prompts', '4', '--random-input-len', '16', '--random-output-len', '4',
        '--metrics-url', `${html.url}/metrics`, `${html.url}/other`, 'http://127.0.0.1:9/metrics', '--no-save', '--json', '--progress', 'none', '--workers', '0',
      ]);
      expectCompleted(out);
      const r = JSON.parse(out.stdout) as RunResult;
      expect(r.metrics.requests.ok).toBe(4);
      const problems = r.server?.sources.map((x) => x.problem);
      expect(problems?.[0]).toMatch(/not Prometheus text/);
      expect(problems?.[1]).toMatch(/unknown engine/);
      expect(problems?.[2]).toMatch(/ECONNREFUSED|refused/);
      // one warning line per endpoint, however many scrapes failed
      expect(out.stderr.split('\n').filter((l) => l.startsWith('warning: server metrics')).length).toBe(3);
    } finally {
      await html.close();
    }
  });
});
