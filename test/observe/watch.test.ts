import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseObjective } from '../../src/config/slo.js';
import { objectiveCatalog } from '../../src/metrics/objective-catalog.js';
import { ServerObjective, unsupportedReason } from '../../src/observe/server-objectives.js';
import type { ScrapeWindow } from '../../src/observe/series.js';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

const objective = (t: string) => parseObjective(t, objectiveCatalog());
/** A window whose TTFT histogram holds `fast` observations ≤ 0.1 s and `slow` in (0.1, 1]. */
const win = (end: number, fast: number, slow: number): ScrapeWindow => ({
  source: 0,
  start_ms: end - 1000,
  end_ms: end,
  resets: 0,
  values: { ttft_s: { kind: 'histogram', hist: { le: [0.1, 1, Infinity], counts: [fast, fast + slow, fast + slow], sum: 0, count: fast + slow } } },
});

describe('SLOs from the server histograms (watch)', () => {
  it('judges the statistic over the objective window at each refresh; attainment = share of refreshes held', () => {
    const s = new ServerObjective(objective('p50(ttft) < 200ms over 2s >= 60%'), 60_000);
    // refresh 1 at t=2s: windows ending at 1s and 2s → 10 fast, 0 slow: p50 = 0.05 s = 50 ms → held
    expect(s.evaluate([win(1000, 5, 0), win(2000, 5, 0)], 2000)).toMatchObject({ held: true, passes: 1, evaluations: 1, breached: false });
    // refresh 2 at t=4s: windows at 3s and 4s → 2 fast, 8 slow: p50 rank 5 → 0.1 + 0.9 × 3/8 = 0.4375 s → missed
    const r2 = s.evaluate([win(1000, 5, 0), win(2000, 5, 0), win(3000, 1, 4), win(4000, 1, 4)], 4000);
    expect(r2.value_ms).toBeCloseTo(437.5, 9);
    expect(r2).toMatchObject({ held: false, passes: 1, evaluations: 2, attainment: 0.5, breached: true });
    // no request in the window: not judged
    expect(s.evaluate([], 9000)).toMatchObject({ held: null, evaluations: 2 });
  });

  it('refuses SLOs the server histograms cannot judge', () => {
    expect(unsupportedReason(objective('error_rate < 1%'))).toMatch(/ttft, tpot and e2el/);
    expect(unsupportedReason(objective('p99(tpot) < 50ms'))).toBeNull();
  });

  describe('infermeter watch --slo', () => {
    let sim: SimServer;
    // watch reads the simulator's /metrics through this pass-through, which says when a scrape
    // has read the counters: the load goes after watch's first scrape (its baseline) on that
    // event. A fixed 200 ms wait let a watch that started late on a loaded machine take its
    // baseline after the load, and see no request in its window.
    let metricsUrl: string;
    let proxy: Server;
    let onScrape: (() => void) | null = null;
    beforeAll(async () => {
      sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 5, perTokenMs: 1 } });
      proxy = createServer((req, res) => {
        void fetch(`${sim.url}${req.url ?? '/'}`).then(async (r) => {
          const text = await r.text();
          onScrape?.();
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
          res.end(text);
        });
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      metricsUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/metrics`;
    });
    afterAll(async () => {
      await new Promise((r) => proxy.close(r));
      await sim.close();
    });

    /** Runs watch once (two scrapes 5 s apart) with five requests sent right after its first scrape. */
    const watchOverLoad = async (slo: string) => {
      const firstScrape = new Promise<void>((r) => (onScrape = r));
      const load = firstScrape.then(() =>
        Promise.all(
          Array.from({ length: 5 }, () => fetch(`${sim.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim-llama-3.1-8b', prompt: 'hi', max_tokens: 3 }) }).then((r) => r.text())),
        ),
      );
      const [out] = await Promise.all([runCli(['watch', '--metrics-url', metricsUrl, '--interval', '5s', '--once', '--slo', slo]), load]);
      onScrape = null;
      return out;
    };

    it('exit 3 and an ALERT line when an SLO ends below its attainment; 0 when it holds', async () => {
      const bad = await watchOverLoad('p95(ttft) < 0.001ms');
      expect(bad.stdout).toMatch(/ALERT SLO p95\(ttft\) < 0\.001ms: now [\d.]+ ms MISSED; attainment 0\.0% \(0\/1\)/);
      expect(bad.code).toBe(3);
      const good = await watchOverLoad('p95(ttft) < 60s');
      expect(good.stdout).toMatch(/SLO p95\(ttft\) < 1m: now [\d.]+ ms held; attainment 100\.0% \(1\/1\)/);
      expect(good.code).toBe(0);
    });

    it('an SLO watch cannot judge is one line, exit 2', async () => {
      const out = await runCli(['watch', '--metrics-url', `${sim.url}/metrics`, '--slo', 'error_rate < 1%']);
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/watch judges SLOs on ttft, tpot and e2el/);
    });
  });
});
