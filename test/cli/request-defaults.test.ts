/**
 * What a run asks of a real server by default: ignore_eos as vLLM's bench serve sets it per
 * dataset, and prompts that a repeated run does not replay word for word (a prefix cache would
 * serve them), while a recorded salt still replays them exactly.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';

interface Sent {
  prompt: string;
  ignore_eos?: boolean;
  max_tokens: number;
}

describe('request defaults against a server', () => {
  let server: TestServer;
  let sent: Sent[] = [];
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'infermeter-defaults-'));
    server = await startTestServer((req, res, body) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ data: [{ id: 'm' }] }));
      }
      if (req.url !== '/v1/completions') {
        res.writeHead(404);
        return res.end();
      }
      const b = JSON.parse(body) as Sent;
      sent.push(b);
      sseHeaders(res);
      res.end(`${chunk('a')}${chunk('b', 'length')}data: [DONE]\n\n`);
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sent = [];
  });

  const run = (extra: string[]) => runCli(['run', '--base-url', server.url, '--model', 'm', '--num-prompts', '3', '--random-input-len', '16', '--random-output-len', '2', '--progress', 'none', '--workers', '0', ...extra]);
  const loadRequests = () => sent.slice(-3); // after pre-flight's probes

  it('random dataset: ignore_eos is sent, as vllm bench serve does', async () => {
    expectCompleted(await run(['--no-save']));
    expect(loadRequests().map((b) => b.ignore_eos)).toEqual([true, true, true]);
  });

  it('a file dataset: no ignore_eos (its entries’ lengths); --no-ignore-eos turns it off for random', async () => {
    const data = join(dir, 'd.jsonl');
    writeFileSync(data, ['{"prompt":"one two three","output_len":2}', '{"prompt":"four five six","output_len":2}'].join('\n'));
    expectCompleted(await run(['--no-save', '--dataset-name', 'jsonl', '--dataset-path', data]));
    expect(loadRequests().map((b) => b.ignore_eos)).toEqual([undefined, undefined, undefined]);
    expectCompleted(await run(['--no-save', '--no-ignore-eos']));
    expect(loadRequests().map((b) => b.ignore_eos)).toEqual([undefined, undefined, undefined]);
  });

  it('a repeated run with the default seed sends other words of the same lengths; the recorded salt replays them', async () => {
    const resultDir = join(dir, 'runs');
    const first = await run(['--result-dir', resultDir]);
    expectCompleted(first);
    const a = loadRequests().map((b) => b.prompt);
    await run(['--no-save']);
    const b = loadRequests().map((x) => x.prompt);
    expect(b).not.toEqual(a);
    expect(b.map((p) => p.split(' ').length)).toEqual(a.map((p) => p.split(' ').length));
    const spec = JSON.parse(readFileSync(join(resultDir, readdirSync(resultDir).filter((d) => !d.startsWith('.'))[0]!, 'spec.json'), 'utf8')) as { workload: { prompt_salt: string } };
    expect(spec.workload.prompt_salt).toMatch(/^[0-9a-f]{8}$/);
    expect(first.stderr).toContain(`--prompt-salt ${spec.workload.prompt_salt}`);
    await run(['--no-save', '--prompt-salt', spec.workload.prompt_salt]);
    expect(loadRequests().map((x) => x.prompt)).toEqual(a);
  });
});
