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

export const INJECTED = {
  output: `<script>window.__pwned = 'output'</script>`,
  error: `<img src=x onerror="window.__pwned = 'error'">`,
  model: `</script><script>window.__pwned = 'model'</script>`,
  task: `<b onclick="window.__pwned = 'task'">chat</b>`,
};

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
    slos: [{ slo: 'p99(ttft) <= 500ms over 5s >= 99%', metric: 'ttft', value: 612.5, attainment: 0.5, attainment_target: 0.99, windows: { total: 4, evaluated: 4, met: 2, whole_run: false }, pass: false }],
  });
  writeFileSync(join(dir, 'result.json'), JSON.stringify(result, null, 2));
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
