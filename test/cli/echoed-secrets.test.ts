/**
 * A server that streams back the request's credentials as its answer (Authorization, X-Api-Key,
 * the URL's query), with --keep-text: no secret reaches any file of the run, any export (CSV,
 * Parquet read back by DuckDB, Markdown), the report, a dashboard route or `sql` output. Each
 * secret form: OPENAI_API_KEY, --header 'Authorization: Bearer …', an X-Api-Key header,
 * ?api_key= in the base URL, and user:password in the base URL (sent as HTTP Basic).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/dashboard/serve.js';
import { runCli } from '../helpers/cli.js';
import { sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

const API_KEY = 'sk-echo-KEY-1111-abcd';
const BEARER = 'hdr-BEARER-2222';
const X_API_KEY = 'xkey-3333-efgh';
const QUERY_KEY = 'qkey-4444';
const URL_PASSWORD = 'pw-URL-5555';
const BASIC = Buffer.from(`alice:${URL_PASSWORD}`).toString('base64');
const SECRETS = [API_KEY, BEARER, X_API_KEY, QUERY_KEY, URL_PASSWORD, BASIC];

function expectNoSecret(where: string, text: string): void {
  for (const s of SECRETS) expect(text.includes(s), `${where} holds ${s}`).toBe(false);
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('secrets a server echoes as content', () => {
  let server: TestServer;
  let results: string;
  const runs: string[] = [];

  beforeAll(async () => {
    results = mkdtempSync(join(tmpdir(), 'infermeter-echo-'));
    // Streams back what it was sent, three characters per chunk, so a secret is split across
    // chunks (and across reads) as a real echo would be.
    server = await startTestServer((req, res) => {
      const echo = `auth=${req.headers.authorization ?? ''} xkey=${req.headers['x-api-key'] ?? ''} url=${req.url ?? ''}`;
      sseHeaders(res);
      const pieces = echo.match(/[^]{1,3}/g) ?? [];
      for (const p of pieces) res.write(`data: ${JSON.stringify({ id: 'x', object: 'text_completion', choices: [{ index: 0, text: p, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'text_completion', choices: [{ index: 0, text: '', finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: pieces.length } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
    const host = server.url.slice('http://'.length);
    const common = ['--no-preflight', '--model', 'm', '--num-prompts', '2', '--keep-text', '--result-dir', results, '--progress', 'none', '--workers', '0', '--allow-invalid'];
    const cases: Array<{ argv: string[]; env: NodeJS.ProcessEnv }> = [
      // OPENAI_API_KEY (Bearer), an X-Api-Key header and ?api_key= in the base URL.
      { argv: ['--base-url', `http://${host}/v1?api_key=${QUERY_KEY}`, '--header', `X-Api-Key: ${X_API_KEY}`], env: { OPENAI_API_KEY: API_KEY } },
      // --header 'Authorization: Bearer …'.
      { argv: ['--base-url', `http://${host}/v1`, '--header', `Authorization: Bearer ${BEARER}`], env: {} },
      // user:password in the base URL, sent as HTTP Basic.
      { argv: ['--base-url', `http://alice:${URL_PASSWORD}@${host}/v1`], env: {} },
    ];
    for (const c of cases) {
      const before = new Set(readdirSync(results));
      const out = await runCli(['run', ...c.argv, ...common], c.env);
      expect(out.code, out.stderr).toBe(0);
      expectNoSecret('stdout', out.stdout);
      expectNoSecret('stderr', out.stderr);
      const made = readdirSync(results).filter((n) => !before.has(n) && !n.startsWith('.') && statSync(join(results, n)).isDirectory());
      expect(made).toHaveLength(1);
      runs.push(made[0]!);
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(results, { recursive: true, force: true });
  });

  it('records.jsonl keeps the echoed answer with every secret replaced', () => {
    const texts = runs.map((r) => readFileSync(join(results, r, 'records.jsonl'), 'utf8'));
    // The echo went through (the test would pass vacuously otherwise) and was redacted.
    expect(texts[0]).toContain('auth=Bearer [redacted] xkey=[redacted] url=/v1/completions?api_key=[redacted]');
    // The whole header value is a secret, and is replaced whole.
    expect(texts[1]).toContain('auth=[redacted] xkey= url=/v1/completions');
    expect(texts[2]).toContain('auth=Basic [redacted] xkey= url=/v1/completions');
    texts.forEach((t, i) => expectNoSecret(`${runs[i]}/records.jsonl`, t));
  });

  it('no file of any run, no export (CSV, Parquet, Markdown) and no report holds a secret', async () => {
    for (const r of runs) {
      const dir = join(results, r);
      const exp = await runCli(['export', dir, '--format', 'csv,parquet,markdown']);
      expect(exp.code, exp.stderr).toBe(0);
      const rep = await runCli(['report', dir]);
      expect(rep.code, rep.stderr).toBe(0);
      const files = filesUnder(dir);
      for (const name of ['records.csv', 'records.parquet', 'summary.md', 'report.html']) expect(files.some((f) => f.endsWith(`/${name}`)), name).toBe(true);
      for (const f of files) expectNoSecret(f, readFileSync(f).toString('latin1'));
      expect(readFileSync(join(dir, 'records.csv'), 'utf8')).toContain('[redacted]');
      expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('[redacted]');
      // Parquet is compressed: read it back and look at the values themselves.
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      const rows = (await c.runAndReadAll(`SELECT output_text FROM read_parquet('${join(dir, 'records.parquet')}')`)).getRowObjectsJson();
      c.closeSync();
      db.closeSync();
      const parquet = JSON.stringify(rows);
      expect(parquet).toContain('[redacted]');
      expectNoSecret(`${r}/records.parquet`, parquet);
    }
    for (const f of filesUnder(results)) expectNoSecret(f, readFileSync(f).toString('latin1'));
  });

  it('sql output holds none', async () => {
    const out = await runCli(['sql', 'SELECT run_id, output_text, finish_reason FROM records ORDER BY run_id', '--results-dir', results, '--json']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('[redacted]');
    expectNoSecret('sql', out.stdout);
  });

  it('the dashboard\'s run list, report and file routes hold none', async () => {
    const dash = await startDashboard({ resultsDir: results, port: 0, pollMs: 20 });
    try {
      const list = await get(`${dash.url}/api/runs`);
      expect(list.status).toBe(200);
      expectNoSecret('/api/runs', list.body);
      for (const r of runs) {
        for (const path of [`/runs/${r}/report`, `/runs/${r}/files/records.jsonl`, `/runs/${r}/files/result.json`, `/runs/${r}/files/spec.json`]) {
          const res = await get(`${dash.url}${path}`);
          expect(res.status, path).toBe(200);
          expectNoSecret(path, res.body);
        }
        expect((await get(`${dash.url}/runs/${r}/files/records.jsonl`)).body).toContain('[redacted]');
      }
    } finally {
      await dash.close();
    }
  });
});
