/**
 * No credential is ever written or printed: a server that echoes the key it refused (as many do
 * in a 401 body) and credentials in --base-url leave no trace in records.jsonl, result.json,
 * spec.json, stdout or stderr.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/servers.js';

const API_KEY = 'sk-test-KEY-4242-abcd';
const HEADER_TOKEN = 'hdr-TOKEN-7777';
const URL_PASSWORD = 'pw-URL-9999';
const QUERY_TOKEN = 'q-TOKEN-5555';
const SECRETS = [API_KEY, HEADER_TOKEN, URL_PASSWORD, QUERY_TOKEN, Buffer.from(`alice:${URL_PASSWORD}`).toString('base64')];

function expectNoSecret(where: string, text: string): void {
  for (const s of SECRETS) expect(text.includes(s), `${where} holds ${s}`).toBe(false);
}

describe('secrets', () => {
  let server: TestServer;
  let resultDir: string;
  beforeAll(async () => {
    resultDir = mkdtempSync(join(tmpdir(), 'infermeter-secrets-'));
    // Refuses every request, echoing what it was sent, as careless gateways do.
    server = await startTestServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      const echo = `${req.headers.authorization ?? ''} ${req.headers['x-auth-token'] ?? ''} ${req.url ?? ''}`;
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${echo}`, type: 'invalid_request_error' } }));
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(resultDir, { recursive: true, force: true });
  });

  const base = () => `${server.url.replace('http://', `http://alice:${URL_PASSWORD}@`)}/v1?token=${QUERY_TOKEN}`;

  it('a run whose every request got a 401 echoing the key: nothing written or printed holds a secret', async () => {
    const out = await runCli(
      ['run', '--base-url', base(), '--no-preflight', '--model', 'm', '--num-prompts', '3', '--header', `X-Auth-Token: ${HEADER_TOKEN}`, '--result-dir', resultDir, '--progress', 'none', '--workers', '0'],
      { OPENAI_API_KEY: API_KEY },
    );
    expectNoSecret('stdout', out.stdout);
    expectNoSecret('stderr', out.stderr);
    // Run directories only: the results folder also holds the run history (history.duckdb).
    const dirs = readdirSync(resultDir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
    expect(dirs).toHaveLength(1);
    const dir = join(resultDir, dirs[0]!);
    const records = readFileSync(join(dir, 'records.jsonl'), 'utf8');
    expect(records).toContain('Incorrect API key provided');
    expect(records).toContain('[redacted]');
    expectNoSecret('records.jsonl', records);
    expectNoSecret('result.json', readFileSync(join(dir, 'result.json'), 'utf8'));
    // Every file of the run (report.html and whatever else a run writes) is checked too.
    for (const f of readdirSync(dir)) expectNoSecret(f, readFileSync(join(dir, f), 'utf8'));
    const spec = readFileSync(join(dir, 'spec.json'), 'utf8');
    expectNoSecret('spec.json', spec);
    expect(JSON.parse(spec).target.base_url).toBe(`http://[redacted]@${server.url.slice('http://'.length)}?token=[redacted]`);
    expect(out.stdout).toContain(`http://[redacted]@${server.url.slice('http://'.length)}?token=[redacted]`);
    // The run history: the row as journaled by the run, as listed, and the database file's bytes.
    for (const f of readdirSync(join(resultDir, '.history-pending'))) expectNoSecret(f, readFileSync(join(resultDir, '.history-pending', f), 'utf8'));
    const history = await runCli(['history', '--results-dir', resultDir, '--json']);
    expect(history.stdout).toContain('[redacted]');
    expectNoSecret('history --json', history.stdout);
    expectNoSecret('history.duckdb', readFileSync(join(resultDir, 'history.duckdb')).toString('latin1'));
  });

  it('the pre-flight error line names the URL without its credentials', async () => {
    const out = await runCli(['run', '--base-url', base(), '--num-prompts', '1', '--no-save'], { OPENAI_API_KEY: API_KEY });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/HTTP 401/);
    expectNoSecret('stderr', out.stderr);
    expectNoSecret('stdout', out.stdout);
  });
});
