/** Dataset `check`/`expected` fields (docs/quality.md §Dataset fields) and the eval suite as a dataset. */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { UserError } from '../../src/errors/user-error.js';
import { EVAL_ITEMS } from '../../src/workload/datasets/eval/index.js';
import { WorkloadSpecSchema, createWorkload } from '../../src/workload/index.js';
import type { WorkItem } from '../../src/workload/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

async function load(over: Record<string, unknown>) {
  return createWorkload(WorkloadSpecSchema.parse(over), { seed: 1, endpointKind: 'chat', warn: () => {} });
}
const take = (w: { next(): WorkItem }, n: number) => Array.from({ length: n }, () => w.next());

function jsonl(lines: unknown[]): string {
  const path = join(tempDir('check-fields'), 'data.jsonl');
  writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return path;
}

describe('JSONL check fields', () => {
  it('carries the check and task to the work item; the entry expected fills the check in', async () => {
    const path = jsonl([
      { prompt: 'What is 6 × 7?', expected: '42', task: 'math', check: { kind: 'numeric', tolerance: 0.5 } },
      { prompt: 'Capital of France?', expected: 'Paris', check: 'normalized' },
      { prompt: 'Say hi', max_tokens: 8 },
    ]);
    const w = await load({ dataset_name: 'jsonl', dataset_path: path, sampling: 'sequential' });
    const [a, b, c] = take(w, 3);
    expect(a).toMatchObject({ prompt: 'What is 6 × 7?', task: 'math', expected: '42', check: { kind: 'numeric', expected: 42, tolerance: 0.5 } });
    expect(b!.check).toEqual({ kind: 'normalized', expected: 'Paris' });
    expect(c!.check).toBeUndefined();
    expect(w.answerSources!().map((s) => [s.prompt, s.reference])).toEqual([
      ['What is 6 × 7?', '42'],
      ['Capital of France?', 'Paris'],
    ]);
  });

  it('a check that cannot be evaluated is a UserError naming file:line, not a skipped line', async () => {
    const path = jsonl([{ prompt: 'ok', check: { kind: 'exact', expected: 'x' } }, '// comment', { prompt: 'bad', check: { kind: 'regex', pattern: '([a-z]+' } }]);
    await expect(load({ dataset_name: 'jsonl', dataset_path: path })).rejects.toThrow(UserError);
    await expect(load({ dataset_name: 'jsonl', dataset_path: path })).rejects.toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: check\\.pattern: invalid regex: `));
    const noTests = jsonl([{ prompt: 'write f', check: { kind: 'code' } }]);
    await expect(load({ dataset_name: 'jsonl', dataset_path: noTests })).rejects.toThrow(/data\.jsonl:1: check\.tests: a code check needs tests/);
  });

  it('run: exit 2 with file:line before any request is sent', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const path = jsonl([{ prompt: 'x', check: { kind: 'json', schema: { type: 'no-such-type' } } }]);
      const out = await runCli(['run', '--base-url', `http://127.0.0.1:${port}`, '--model', 'm', '--dataset-name', 'jsonl', '--dataset-path', path, '--num-prompts', '2']);
      expect(out.code).toBe(EXIT_CODES.USAGE);
      expect(out.stderr).toContain(`${path}:1: check.schema: invalid JSON schema`);
      expect(requests).toBe(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('--dataset-name eval', () => {
  it('serves every suite item with its parsed check, task and max_tokens', async () => {
    const w = await load({ dataset_name: 'eval', sampling: 'sequential' });
    const items = take(w, EVAL_ITEMS.length);
    expect(new Set(items.map((i) => i.prompt)).size).toBe(EVAL_ITEMS.length);
    for (const item of items) {
      const src = EVAL_ITEMS.find((e) => e.prompt === item.prompt)!;
      expect(item.task).toBe(src.task);
      expect(item.check?.kind).toBe(src.check['kind']);
      expect(item.max_tokens).toBe(src.max_tokens);
    }
    expect(w.answerSources!()).toHaveLength(EVAL_ITEMS.length);
    expect(w.describe()).toMatchObject({ dataset: 'eval', path: 'builtin:eval', entries: EVAL_ITEMS.length });
  });
});
