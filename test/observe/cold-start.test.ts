import { describe, expect, it } from 'vitest';
import { waitForHealthy } from '../../src/client/cold-start.js';
import { coldStartLatency } from '../../src/metrics/cold-start.js';
import type { RunResult } from '../../src/report/result-json.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, sseHeaders, startTestServer } from '../helpers/servers.js';
import { rec } from '../metrics/make-record.js';

/** A server that is "starting" for its first `coldPolls` health polls. */
async function coldServer(coldPolls: number, hasHealth = true) {
  let healthPolls = 0;
  return startTestServer((req, res) => {
    if (req.url === '/health' && hasHealth) {
      healthPolls++;
      res.writeHead(healthPolls <= coldPolls ? 503 : 200);
      res.end();
      return;
    }
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'm' }] }));
      return;
    }
    if (req.method === 'POST' && req.url?.endsWith('/completions')) {
      sseHeaders(res);
      res.end(`${chunk('a')}${chunk('b', 'stop')}data: [DONE]\n\n`);
      return;
    }
    res.writeHead(404);
    res.end();
  });
}

describe('cold start', () => {
  it('polls the health endpoint until it answers 200, counting polls', async () => {
    const server = await coldServer(3);
    try {
      const h = await waitForHealthy(server.url, { headers: {}, insecureTls: false, timeoutMs: 60_000, intervalMs: 1, sleep: async () => {} });
      expect(h.polls).toBe(4);
      expect(h.path).toBe('/health');
    } finally {
      await server.close();
    }
  });

  it('asks for /v1/models when the server has no /health', async () => {
    const server = await coldServer(0, false);
    try {
      const h = await waitForHealthy(server.url, { headers: {}, insecureTls: false, timeoutMs: 60_000, intervalMs: 1, sleep: async () => {} });
      expect(h).toMatchObject({ polls: 2, path: '/v1/models' });
    } finally {
      await server.close();
    }
  });

  it('gives up with one line after its time limit (virtual clock)', async () => {
    let t = 0;
    await expect(
      waitForHealthy('http://127.0.0.1:9', { headers: {}, insecureTls: false, timeoutMs: 1000, intervalMs: 250, now: () => t, sleep: async (ms) => void (t += ms) }),
    ).rejects.toThrow(/not healthy within 1 s \(5 polls; last: ECONNREFUSED\)/);
  });

  it('first requests against the rest, from records', () => {
    // first 2 (by send time) have TTFT 100 and 300 ms; the rest 10, 20, 30
    const rs = [0, 1, 2, 3, 4].map((i) => rec({ sent_ms: i * 1000, chunks: [i * 1000 + [100, 300, 10, 20, 30][i]!, i * 1000 + 400] }));
    const c = coldStartLatency(rs, 2);
    expect(c.first_n).toBe(2);
    expect(c.first_ttft_p50_ms).toBe(200);
    expect(c.steady_ttft_p50_ms).toBe(20);
    expect(c.ttft_ratio).toBe(10);
  });

  it('--cold-start end to end: healthy after its cold polls, then the first response, in result.json', async () => {
    const server = await coldServer(2);
    try {
      const out = await runCli(['run', '--base-url', server.url, '--model', 'm', '--num-prompts', '12', '--cold-start', '--json', '--no-save', '--progress', 'none', '--workers', '0', '--no-metrics']);
      expectCompleted(out);
      const c = (JSON.parse(out.stdout) as RunResult).cold_start;
      expect(c?.polls).toBe(3);
      expect(c?.first_n).toBe(10);
      expect(c?.time_to_first_response_ms).toBeGreaterThanOrEqual(c?.time_to_healthy_ms ?? Infinity);
      expect(out.stderr).toMatch(/--cold-start: healthy after .* \(3 polls of \/health\)/);
    } finally {
      await server.close();
    }
  });
});
