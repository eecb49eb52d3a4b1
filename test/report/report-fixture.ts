/**
 * A run directory for report tests: a real `sim run` (virtual time, so its records are
 * deterministic), then edited to carry what a hostile or failing server can put in a run —
 * markup in the model name, an output, an error message and a task label — plus failures and
 * two tasks, with result.json recomputed from the edited records.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeMetrics, computeMetricsByTask } from '../../src/metrics/index.js';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import type { RunResult } from '../../src/report/result-json.js';
import { readRecordsFile } from '../../src/store/records-file.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { observationOf } from '../../src/observe/observation.js';
import type { RawValue, Snapshot } from '../../src/observe/snapshot.js';

export const INJECTED = {
  output: `<script>window.__pwned = 'output'</script>`,
  error: `<img src=x onerror="window.__pwned = 'error'">`,
  model: `</script><script>window.__pwned = 'model'</script>`,
  task: `<b onclick="window.__pwned = 'task'">chat</b>`,
};

/** Cumulative histogram (s) of `n` observations all equal to `v`, on fixed bounds. */
function hist(n: number, v: number): RawValue {
  const le = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, Infinity];
  return { kind: 'histogram', hist: { le, counts: le.map((b) => (v <= b ? n : 0)), sum: n * v, count: n } };
}

/** One scrape a second: waiting grows in the middle third (queue time with it), KV usage follows. */
export function serverScrapes(endMs: number): Snapshot[] {
  const out: Snapshot[] = [];
  let done = 0;
  let queueSum = 0;
  let prompt = 0;
  let gen = 0;
  for (let t = 0; t <= endMs + 1000; t += 1000) {
    const phase = t / Math.max(endMs, 1);
    const waiting = phase > 0.33 && phase < 0.66 ? Math.round(10 * Math.sin((phase - 0.33) * Math.PI * 3)) : 0;
    done += 20;
    queueSum += 20 * (waiting * 0.02);
    prompt += 20 * 128;
    gen += 20 * 64;
    out.push({
      t_ms: t,
      source: 0,
      engines: ['vllm'],
      values: {
        running: { kind: 'gauge', value: 8 + waiting },
        waiting: { kind: 'gauge', value: waiting },
        kv_usage: { kind: 'gauge', value: Math.min(0.95, 0.3 + waiting * 0.06) },
        preemptions_per_s: { kind: 'counter', value: 0 },
        prompt_tokens_per_s: { kind: 'counter', value: prompt },
        generation_tokens_per_s: { kind: 'counter', value: gen },
        queue_time_s: { kind: 'histogram', hist: { ...(hist(done, 0.001) as { hist: { le: number[]; counts: number[] } }).hist, sum: queueSum, count: done } },
        prefill_time_s: hist(done, 0.02),
        prefix_hit_rate: { kind: 'ratio', num: done * 0.3, den: done },
        gpu_util: { kind: 'gauge', value: 0.6 + waiting * 0.03 },
        gpu_mem_used_bytes: { kind: 'gauge', value: 70 * 2 ** 30 },
      },
    });
  }
  return out;
}

export interface ReportFixture {
  root: string;
  dir: string;
  cleanup(): void;
}

export async function makeReportFixture(): Promise<ReportFixture> {
  const root = tempDir('report');
  const r = await runCli(['sim', 'run', '--request-rate', '20', '--num-prompts', '300', '--seed', '3', '--result-dir', root, '--name', 'fx', '--no-report', '--goodput', 'ttft:300', 'tpot:40']);
  if (r.code !== 0) throw new Error(`sim run failed: ${r.stderr}`);
  const dir = join(root, readdirSync(root).filter((d) => !d.startsWith('.'))[0]!);
  const { records } = readRecordsFile(join(dir, 'records.jsonl'));
  records.sort((a, b) => a.id - b.id);
  records.forEach((rec, i) => (rec.task = i % 3 === 0 ? INJECTED.task : 'summarize'));
  records[0]!.output_text = INJECTED.output;
  records[1]!.output_text = 'plain output & <b>not bold</b>';
  for (const rec of records.slice(10, 16)) {
    rec.status = 'error';
    rec.error_class = 'http_5xx';
    rec.http_status = 500;
    rec.error_message = INJECTED.error;
  }
  writeFileSync(join(dir, 'records.jsonl'), `${records.map(recordToJsonLine).join('\n')}\n`);
  const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
  const slos = result.metrics.goodput!.slos;
  result.metrics = computeMetrics(records, { slos });
  result.by_task = computeMetricsByTask(records, { slos });
  result.target.model = INJECTED.model;
  // Windowed SLO results as result.json's `slos` documents them (written by runs given --slo).
  Object.assign(result, {
    slos: [{ slo: 'p99(ttft) <= 500ms over 5s >= 99%', metric: 'ttft_ms', unit: 'ms', statistic: 'p99', op: '<=', threshold: 500, window_ms: 5000, value: 612.5, attainment: 0.5, attainment_target: 0.99, windows: { total: 4, evaluated: 4, met: 2, whole_run: false }, pass: false }],
  });
  // The server's side, as a scraped vLLM would show a queue building: hand-built scrapes every
  // second over the run (server-metrics.jsonl) and result.json's summary of them.
  const endMs = Math.max(...records.map((r) => r.end_ms));
  const snapshots = serverScrapes(endMs);
  writeFileSync(join(dir, 'server-metrics.jsonl'), `${snapshots.map((x) => JSON.stringify(x)).join('\n')}\n`);
  result.server = observationOf(snapshots, [{ url: 'http://127.0.0.1:8000/metrics', engines: ['vllm'], scrapes: snapshots.length, failed: 0, problem: null }], 'scrape', 1000, 0, endMs);
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result, null, 2));
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
