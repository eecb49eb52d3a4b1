/**
 * An endpoint kind from a plugin module (docs/plugins.md): test/fixtures/plugins/ holds a TGI
 * /generate_stream kind in plain JavaScript; a test server replays TGI's stream format over
 * HTTP. The plugin is loaded in the worker thread too (--workers 1). Bad plugins: one line, exit 2.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readRecordsFile } from '../../src/store/records-file.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const fixture = (name: string): string => join(import.meta.dirname, '..', 'fixtures', 'plugins', name);
const dirs: string[] = [];
let tgi: TestServer;
const bodies: unknown[] = [];

beforeAll(async () => {
  tgi = await startTestServer((req, res, body) => {
    if (req.url !== '/generate_stream') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    const b = JSON.parse(body) as { inputs: string; parameters: { max_new_tokens: number } };
    bodies.push(b);
    sseHeaders(res);
    const n = b.parameters.max_new_tokens;
    for (let i = 0; i < n; i++) {
      const last = i === n - 1;
      const details = last ? { finish_reason: 'length', generated_tokens: n, input_length: 16, seed: null } : null;
      res.write(`data:${JSON.stringify({ index: i + 1, token: { id: 100 + i, text: ` t${i}`, logprob: -0.5, special: false }, generated_text: last ? 'all' : null, details })}\n\n`);
    }
    res.end();
  });
});
afterAll(async () => {
  await tgi.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const args = (plugin: string, dir: string): string[] => [
  'run', '--base-url', tgi.url, '--endpoint-type', fixture(plugin), '--model', 'tgi-model', '--num-prompts', '6', '--request-rate', '50',
  '--random-input-len', '16', '--random-output-len', '4', '--workers', '1', '--no-capacity-check', '--result-dir', dir, '--progress', 'none',
];

describe('an endpoint kind from a plugin', () => {
  it("runs end to end: the plugin's body, path and stream parser fill the records", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-plugin-'));
    dirs.push(dir);
    const out = await runCli(args('tgi-generate-stream.mjs', dir));
    expectCompleted(out);
    const runDir = join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!);
    const recs = readRecordsFile(join(runDir, 'records.jsonl')).records;
    expect(recs).toHaveLength(6);
    for (const r of recs) expect([r.status, r.output_tokens, r.token_source, r.chunk_ms.length, r.finish_reason, r.prompt_tokens]).toEqual(['ok', 4, 'usage', 4, 'length', 16]);
    expect(bodies.at(-1)).toMatchObject({ parameters: { max_new_tokens: 4, details: true } });
  });

  it('a module that is not an endpoint kind: one line naming what is missing, exit 2', async () => {
    const out = await runCli(args('not-a-kind.mjs', '/nonexistent'));
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe(`error: --endpoint-type ${fixture('not-a-kind.mjs')}: the plugin does not export an endpoint kind (docs/plugins.md): buildBody: a function`);
  });

  it('a module that does not exist: one line, exit 2', async () => {
    const out = await runCli(args('missing.mjs', '/nonexistent'));
    expect(out.code).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/cannot load the plugin: Cannot find module/);
  });

  it('a buildBody that throws during the load fails those requests (plugin_error), one warning line, the run goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infermeter-plugin-'));
    dirs.push(dir);
    // The load thread's warning reaches the process's stderr (as dataset warnings do).
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    let out: Awaited<ReturnType<typeof runCli>>;
    try {
      out = await runCli(args('throwing-body.mjs', dir));
    } finally {
      spy.mockRestore();
    }
    // A third of the requests failed: the run completes, its verdict INVALID (exit 5).
    expect(out.code).toBe(5);
    expect(out.stdout).toContain('plugin_error');
    const warnings = written.join('').split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: --endpoint-type throws-sometimes: the plugin's buildBody threw: no body for call \d+; such requests are recorded as failed \(plugin_error\), the run goes on$/);
    const runDir = join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!);
    const recs = readRecordsFile(join(runDir, 'records.jsonl')).records;
    expect(recs).toHaveLength(6);
    // Every third call of the load thread: two of six consecutive requests, never sent.
    const failed = recs.filter((r) => r.error_class === 'plugin_error');
    expect(failed).toHaveLength(2);
    for (const r of failed) {
      expect([r.status, r.http_status, r.output_tokens]).toEqual(['error', null, 0]);
      expect(r.error_message).toMatch(/^the plugin's buildBody threw: no body for call \d+$/);
    }
    expect(recs.filter((r) => r.status === 'ok')).toHaveLength(4);
  });

  it('a scanner that throws costs its request, classified; the probe says so before the load', async () => {
    const out = await runCli(args('throwing-scanner.mjs', '/nonexistent'));
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toMatch(/^error: pre-flight request to .*\/generate_stream failed: not JSON: the plugin's scanner threw: boom/);
  });
});
