/**
 * Schedule fidelity (issue 5): how late the client sends, sent_ms − scheduled_ms, p50 / p99,
 * for Poisson arrivals at 100 and 1,000 requests/s. The whole CLI (`infermeter run`, default
 * workers) runs in a child process against the simulator in another process (8 output tokens at
 * 10 ms each), so only the client's own scheduling is measured.
 *
 *   npx tsx bench/schedule.ts [--rates 100,1000] [--seconds 10]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCli } from './cli-run.js';
import { fmt, machine, percentile, startProcess } from './lib.js';

export interface ScheduleRow {
  rate: number;
  requests: number;
  ok: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  /** p99 over requests scheduled after the first second (start-up excluded) */
  steadyP99: number;
  /** the 1-second bucket with the highest p99: its start (s) and p99 */
  worstSecond: number;
  worstSecondP99: number;
}

export async function runSchedule(opts: { rates: number[]; seconds: number }): Promise<ScheduleRow[]> {
  const { port, child } = await startProcess('./timing-server.ts', ['/dev/null', '10']);
  const rows: ScheduleRow[] = [];
  try {
    for (const rate of opts.rates) {
      const n = Math.round(rate * opts.seconds);
      const run = await runCli([
        '--base-url', `http://127.0.0.1:${port}`, '--endpoint', '/v1/chat/completions',
        '--request-rate', String(rate), '--arrival', 'poisson', '--num-prompts', String(n),
        '--random-input-len', '32', '--random-output-len', '8', '--ignore-eos', '--seed', '1', '--name', `schedule-${rate}`,
      ]);
      if (run.code !== 0 || !run.recordsPath) throw new Error(`infermeter run exited ${run.code}: ${run.stderr.slice(0, 500)}`);
      const lags: number[] = [];
      const steady: number[] = [];
      const seconds: number[][] = [];
      let ok = 0;
      for (const line of readFileSync(run.recordsPath, 'utf8').split('\n')) {
        if (!line) continue;
        const r = JSON.parse(line) as { scheduled_ms: number; sent_ms: number; status: string };
        const lag = r.sent_ms - r.scheduled_ms;
        lags.push(lag);
        const sec = Math.floor(r.scheduled_ms / 1000);
        (seconds[sec] ??= []).push(lag);
        if (r.scheduled_ms >= 1000) steady.push(lag);
        if (r.status === 'ok') ok++;
      }
      run.cleanup();
      const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
      let worstSecond = 0;
      let worstSecondP99 = -Infinity;
      seconds.forEach((xs, i) => {
        const p = percentile(sorted(xs), 99);
        if (p > worstSecondP99) [worstSecond, worstSecondP99] = [i, p];
      });
      sorted(lags);
      rows.push({ rate, requests: lags.length, ok, lagP50: percentile(lags, 50), lagP99: percentile(lags, 99), lagMax: lags[lags.length - 1] ?? NaN, steadyP99: percentile(sorted(steady), 99), worstSecond, worstSecondP99 });
    }
  } finally {
    child.kill('SIGTERM');
  }
  return rows;
}

export function printSchedule(rows: ScheduleRow[], opts: { seconds: number }): void {
  console.log(`\n== schedule fidelity: Poisson arrivals for ${opts.seconds} s, sent_ms − scheduled_ms in ms (infermeter run vs the simulator, separate processes)`);
  console.log('rate (req/s)  requests      ok   lag p50    p99    max   p99 after 1st s   worst second (p99)');
  for (const r of rows) {
    console.log(
      `${fmt(r.rate).padStart(12)}  ${fmt(r.requests).padStart(8)} ${fmt(r.ok).padStart(7)}   ${fmt(r.lagP50, 3).padStart(7)} ${fmt(r.lagP99, 3).padStart(6)} ${fmt(r.lagMax, 1).padStart(6)}   ${fmt(r.steadyP99, 3).padStart(15)}   t=${r.worstSecond}s (${fmt(r.worstSecondP99, 1)})`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rates: { type: 'string', default: '100,1000' }, seconds: { type: 'string', default: '10' } } });
  const opts = { rates: values.rates.split(',').map(Number), seconds: Number(values.seconds) };
  console.log(`machine: ${machine()}`);
  printSchedule(await runSchedule(opts), opts);
}
