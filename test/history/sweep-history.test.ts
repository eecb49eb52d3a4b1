/**
 * A sweep directory joins the history one row per stage (kind `sweep`), writes its report.html,
 * and `--reindex` finds it again; in virtual time, so the figures are the simulator's own.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/serve.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = tempDir('sweep-history');
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Row = Record<string, unknown>;

describe('sweep → history and report', () => {
  it('indexes each stage as a sweep row with its own load and figures; reindex gives the same rows', async () => {
    const results = join(root, 'results');
    const out = await runCli(['sim', 'sweep', '--request-rates', '2,8', '--num-prompts', '40', '--random-input-len', '128', '--random-output-len', '16', '--seed', '3', '--result-dir', results]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toMatch(/warning: history/);
    const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
    const report = /Report: (.+)/.exec(out.stdout)![1]!.trim();
    expect(report).toBe(join(dir, 'report.html'));
    expect(readFileSync(report, 'utf8')).toMatch(/infermeter sweep/);

    const sweep = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as { sweep: { id: string }; stages: { index: number; metrics: { requests: { ok: number }; latency: { ttft_ms: { p99: number } } } }[] };
    const list = await runCli(['history', '--results-dir', results, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const rows = (JSON.parse(list.stdout) as Row[]).sort((a, b) => String(a.run_id).localeCompare(String(b.run_id)));
    expect(rows.map((r) => r.run_id)).toEqual([`${sweep.sweep.id}.stage0`, `${sweep.sweep.id}.stage1`]);
    expect(rows.map((r) => r.kind)).toEqual(['sweep', 'sweep']);
    expect(rows.map((r) => r.request_rate)).toEqual([2, 8]);
    expect(rows.map((r) => r.ttft_p99_ms)).toEqual(sweep.stages.map((s) => s.metrics.latency.ttft_ms.p99));
    expect(rows.map((r) => r.ok)).toEqual(sweep.stages.map((s) => s.metrics.requests.ok));
    // Stages at different loads are different specs: a trend never compares stage 0 with stage 1.
    expect(rows[0]!.spec_hash).not.toBe(rows[1]!.spec_hash);

    const re = await runCli(['history', '--results-dir', results, '--reindex']);
    expect(re.stderr).toMatch(/2 rows \(runs and sweep stages\) indexed/);
    const again = JSON.parse((await runCli(['history', '--results-dir', results, '--json'])).stdout) as Row[];
    expect(again).toHaveLength(2);

    // The dashboard lists the stages and serves their sweep's report and sweep.json through the row's `dir`.
    const dash = await startDashboard({ resultsDir: results, port: 0, pollMs: 20 });
    try {
      const listed = (await (await fetch(`${dash.url}/api/runs`)).json()) as { runs: Row[] };
      expect(listed.runs.map((r) => r.dir)).toEqual([basename(dir), basename(dir)]);
      const page = await fetch(`${dash.url}/runs/${basename(dir)}/report`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(readFileSync(report, 'utf8'));
      const doc = (await (await fetch(`${dash.url}/runs/${basename(dir)}/files/sweep.json`)).json()) as { sweep: { id: string } };
      expect(doc.sweep.id).toBe(sweep.sweep.id);
    } finally {
      await dash.close();
    }
  }, 60_000);

  it('--no-report writes no report.html', async () => {
    const results = join(root, 'no-report');
    const out = await runCli(['sim', 'sweep', '--request-rates', '4', '--num-prompts', '10', '--no-report', '--result-dir', results]);
    expect(out.code, out.stderr).toBe(0);
    const dir = /Sweep directory: (.+)/.exec(out.stdout)![1]!.trim();
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    expect(out.stdout).not.toMatch(/Report:/);
  }, 60_000);
});
