/**
 * Saved data checked on read (issue 24): analyze, report, export and compare refuse impossible
 * records with one line naming the file and line (exit 2), drop a record written twice with a
 * warning, and refuse a result.json of a schema this build does not read, naming the ones it does.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READABLE_RESULT_SCHEMAS } from '../../src/store/result-schema.js';

let runDir = '';
let other = '';
let lines: string[] = [];

beforeAll(async () => {
  const resultDir = tempDir('saved-checks');
  const args = ['sim', 'run', '--num-prompts', '30', '--request-rate', '20', '--random-input-len', '32', '--random-output-len', '16', '--result-dir', resultDir];
  const a = await runCli([...args, '--name', 'a']);
  expect(a.code, a.stderr).toBe(0);
  const b = await runCli([...args, '--name', 'b', '--seed', '7']);
  expect(b.code, b.stderr).toBe(0);
  runDir = join(resultDir, readdirSync(resultDir).find((d) => d.endsWith('-a'))!);
  other = join(resultDir, readdirSync(resultDir).find((d) => d.endsWith('-b'))!);
  lines = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trimEnd().split('\n');
});

/** A copy of the run whose records.jsonl is `body` (and result.json edited by `result`). */
function variant(body: string[], result?: (r: Record<string, unknown>) => void): string {
  const dir = join(tempDir('saved-variant'), 'run');
  cpSync(runDir, dir, { recursive: true });
  writeFileSync(join(dir, 'records.jsonl'), `${body.join('\n')}\n`);
  if (result) {
    const r = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as Record<string, unknown>;
    result(r);
    writeFileSync(join(dir, 'result.json'), JSON.stringify(r));
  }
  return dir;
}

const edit = (i: number, f: (r: Record<string, unknown>) => void): string[] =>
  lines.map((l, j) => {
    if (j !== i) return l;
    const r = JSON.parse(l) as Record<string, unknown>;
    f(r);
    return JSON.stringify(r);
  });

/** Every reading command on `dir`: analyze, report, export, compare (against the other run). */
async function everyReader(dir: string): Promise<Record<string, CliResult>> {
  return {
    analyze: await runCli(['analyze', dir]),
    report: await runCli(['report', dir, '--out', join(tempDir('saved-out'), 'r.html')]),
    export: await runCli(['export', dir, '--format', 'csv', '--out-dir', tempDir('saved-out')]),
    compare: await runCli(['compare', other, dir, '--resamples', '20']),
  };
}

function expectRefused(outs: Record<string, CliResult>, pattern: RegExp): void {
  for (const [cmd, out] of Object.entries(outs)) {
    expect(out.code, `${cmd}: ${out.stderr}`).toBe(2);
    const errLines = out.stderr.trim().split('\n').filter((l) => l.startsWith('error:'));
    expect(errLines, `${cmd}: ${out.stderr}`).toHaveLength(1);
    expect(errLines[0], cmd).toMatch(pattern);
  }
}

describe('records read back are checked', () => {
  it('an end before the send is refused by every reader, naming the file and line', async () => {
    const body = edit(4, (r) => (r.end_ms = (r.sent_ms as number) / 2));
    expectRefused(await everyReader(variant(body)), /records\.jsonl:5: end_ms \(.+\) is before sent_ms/);
  });

  it('a negative time is refused', async () => {
    const body = edit(2, (r) => (r.sent_ms = -5));
    expectRefused(await everyReader(variant(body)), /records\.jsonl:3: sent_ms is negative \(-5\)/);
  });

  it('a first token outside the request, or chunk times going back, are refused', async () => {
    const late = edit(1, (r) => (r.first_token_ms = (r.end_ms as number) + 1));
    expect((await runCli(['analyze', variant(late)])).stderr).toMatch(/records\.jsonl:2: first_token_ms .* is outside sent_ms … end_ms/);
    const back = edit(3, (r) => {
      const c = r.chunk_ms as number[];
      [c[1], c[2]] = [c[2]!, c[1]!];
    });
    const out = await runCli(['analyze', variant(back)]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/records\.jsonl:4: chunk_ms goes back in time at index 2/);
  });

  it('a record written twice is counted once, with a warning, by every reader', async () => {
    const dir = variant([...lines, lines[0]!, lines[7]!]);
    const outs = await everyReader(dir);
    for (const [cmd, out] of Object.entries(outs)) {
      expect(out.code, `${cmd}: ${out.stderr}`).toBe(0);
      expect(out.stderr, cmd).toContain(`warning: ${join(dir, 'records.jsonl')}: 2 records written twice (identical lines, the first repeat at line ${lines.length + 1}); each counted once`);
    }
    const json = JSON.parse((await runCli(['analyze', dir, '--json'])).stdout) as { metrics: { requests: { total: number } } };
    expect(json.metrics.requests.total).toBe(lines.length);
  });

  it('records of another run mixed in (same ids, different values) are refused', async () => {
    const theirs = readFileSync(join(other, 'records.jsonl'), 'utf8').trimEnd().split('\n');
    const dir = variant([...lines, ...theirs.slice(0, 3)]);
    expectRefused(await everyReader(dir), /records\.jsonl:\d+: a second, different record for stage 0, id \d+ \(first at line \d+\): records of another run mixed in\?/);
  });

  it('retries of one request (same id, other attempts) and sweep stages (same id, other stage) are not duplicates', async () => {
    const retry = edit(0, (r) => {
      r.attempt = 0;
      r.retried = true;
    });
    const again = JSON.parse(lines[0]!) as Record<string, unknown>;
    again.attempt = 1;
    const stage = JSON.parse(lines[1]!) as Record<string, unknown>;
    stage.stage = 1;
    const out = await runCli(['analyze', variant([...retry, JSON.stringify(again), JSON.stringify(stage)])]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).not.toContain('warning:');
  });
});

describe('result.json of a schema this build does not read', () => {
  it('is refused by analyze, report, export and compare, naming the versions this build reads', async () => {
    const dir = variant(lines, (r) => (r.schema = 'infermeter.result/9'));
    const reads = READABLE_RESULT_SCHEMAS.join(' and ');
    const outs = await everyReader(dir);
    expectRefused({ analyze: outs.analyze!, report: outs.report!, export: outs.export! }, new RegExp(`result\\.json: schema "infermeter\\.result/9" is not one this build reads ${reads.replace(/[./]/g, '\\$&')}`));
    expect(outs.compare!.code).toBe(2);
    expect(outs.compare!.stderr).toContain('infermeter.result/9');
  });
});
