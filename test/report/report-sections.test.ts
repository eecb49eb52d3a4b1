/**
 * The report carries what the console summary shows beyond latency: a reasoning model's answer
 * latencies, the cost block, the server's side. The blocks are the console's own renderers, so
 * the page and the terminal say the same thing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/report/result-json.js';
import { renderCost } from '../../src/report/cost-summary.js';
import { escapeHtml } from '../../src/report/html/escape.js';
import { renderServerSummary } from '../../src/report/server-summary.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

function saved(root: string): { html: string; result: RunResult } {
  const dir = join(root, readdirSync(root).filter((d) => !d.startsWith('.'))[0]!);
  return { html: readFileSync(join(dir, 'report.html'), 'utf8'), result: JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult };
}

describe('report sections beyond latency', () => {
  it('reasoning rows and the cost block (sim run, virtual time)', async () => {
    const root = tempDir('report-sections');
    const out = await runCli(['sim', 'run', '--num-prompts', '30', '--endpoint', '/v1/chat/completions', '--reasoning-tokens', '16', '--gpu-hour-cost', '2.5', '--seed', '4', '--result-dir', root]);
    expect(out.code, out.stderr).toBe(0);
    const { html, result } = saved(root);
    expect(result.metrics.reasoning?.requests).toBe(30);
    expect(html).toContain('<th scope="row">First answer token (ms)</th>');
    expect(html).toContain('<th scope="row">Answer TPOT (ms)</th>');
    expect(html).toContain(`Reasoning: 30 of 30 ok responses reasoned; ${result.metrics.reasoning!.reasoning_tokens_total} reasoning`);
    expect(html).toContain(`<h3>Cost</h3><pre>${escapeHtml(renderCost(result.cost!))}</pre>`);
    expect(html).not.toContain('<h3>Server side</h3>');
  }, 60_000);

  it("the server's side of an HTTP run; no cost block without a price", async () => {
    const root = tempDir('report-sections');
    const out = await runCli(['run', '--num-prompts', '12', '--request-rate', '20', '--random-input-len', '32', '--random-output-len', '8', '--progress', 'none', '--allow-invalid', '--result-dir', root]);
    expect(out.code, out.stderr).toBe(0);
    const { html, result } = saved(root);
    expect(result.server).toBeTruthy();
    expect(html).toContain(`<h3>Server side</h3><pre>${escapeHtml(renderServerSummary(result.server!, result.metrics.latency.ttft_ms.mean ?? null))}</pre>`);
    expect(html).not.toContain('<h3>Cost</h3>');
    expect(html).not.toContain('First answer token');
  }, 60_000);
});
