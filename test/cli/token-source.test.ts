/**
 * Output token counts when the server sends no usage: content chunks by default, the output
 * re-tokenized with --tokenizer; the record says which.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecordsFile } from '../../src/store/records-file.js';
import { loadTokenizer } from '../../src/workload/index.js';
import { expectCompleted, runCli } from '../helpers/cli.js';
import { chunk, sseHeaders, startTestServer, type TestServer } from '../helpers/servers.js';
import { tempDir } from '../helpers/temp-dir.js';

const PIECES = [' Antidis', 'establishment', 'arianism', ' rocks'];

describe('output token source without server usage', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer((_req, res) => {
      sseHeaders(res);
      res.end(`${PIECES.map((p, i) => chunk(p, i === PIECES.length - 1 ? 'stop' : null)).join('')}data: [DONE]\n\n`);
    });
  });
  afterAll(() => server.close());

  async function records(extra: string[]) {
    const dir = tempDir('tok');
    const out = await runCli(['run', '--base-url', server.url, '--model', 'm', '--no-preflight', '--num-prompts', '3', '--random-input-len', '8', '--random-output-len', '4', '--workers', '0', '--result-dir', dir, '--progress', 'none', ...extra]);
    expectCompleted(out);
    return readRecordsFile(join(dir, readdirSync(dir).filter((d) => !d.startsWith('.'))[0]!, 'records.jsonl')).records;
  }

  it('counts content chunks by default', async () => {
    for (const r of await records([])) expect(r).toMatchObject({ status: 'ok', output_tokens: 4, token_source: 'chunks', output_text: null });
  });

  it('re-tokenizes the output with --tokenizer', async () => {
    const llama3 = await loadTokenizer('llama3');
    const expected = llama3.count(PIECES.join(''));
    expect(expected).not.toBe(PIECES.length); // the test must tell the two sources apart
    for (const r of await records(['--tokenizer', 'llama3'])) expect(r).toMatchObject({ status: 'ok', output_tokens: expected, token_source: 'tokenizer', output_text: null });
  });
});
