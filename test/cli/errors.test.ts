/** Bad input: one clear line naming the flag, field, file or URL, exit code 2, no stack trace. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

function expectOneLineError(out: { code: number; stderr: string }, pattern: RegExp): void {
  expect(out.code).toBe(2);
  const lines = out.stderr.trim().split('\n');
  expect(lines, out.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(out.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

const dir = tempDir('err');
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('CLI errors', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ timing: { kind: 'fixed', prefillMs: 1, perTokenMs: 1 }, modelName: 'm1' });
  });
  afterAll(() => sim.close());

  it.each([
    [['run', '--request-rate', 'fast'], /--request-rate: expected a positive rate/],
    [['run', '--request-rate', '0'], /--request-rate/],
    [['run', '--duration', '10 parsecs'], /--duration: expected a duration/],
    [['run', '--num-prompts', 'many'], /--num-prompts: expected an integer/],
    [['run', '--workers', '1000'], /^error: --workers: at most \d+ worker threads on this machine \(4 per core, \d+ cores\)/],
    [['run', '--num-prompts', '-5'], /--num-prompts: .*(>0|positive|too small)/i],
    [['run', '--goodput', 'ttf:500'], /--goodput: unknown SLO metric "ttf"/],
    [['run', '--goodput', 'ttft:soon'], /--goodput: expected a duration/],
    [['run', '--extra-body', '{oops'], /--extra-body: expected a JSON object/],
    [['run', '--arrival', 'uniform'], /--arrival: .*(poisson|gamma|constant)/],
    [['run', '--warmup', 'later'], /--warmup: expected a request count/],
    [['run', '--concurrency', '4', '--max-concurrency', '2'], /--concurrency .* --max-concurrency/],
    [['run', '--num-prompts', '10', '--cooldown', '5s'], /--cooldown as a duration needs --duration/],
    [['run', '--num-prompts', '10', '--warmup', '10'], /leave nothing/],
    [['run', '--base-url', 'not a url'], /--base-url: /],
    [['run', '--timeout', '0'], /^error: --timeout: expected a timeout longer than 0/],
    [['run', '--timeout', '0s'], /^error: --timeout: expected a timeout longer than 0/],
    [['run', '--no-such-flag'], /unknown option '--no-such-flag'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('%j', async (argv, pattern) => {
    expectOneLineError(await runCli(argv as string[]), pattern as RegExp);
  });

  it('config files: missing, unparsable, unknown field, bad value (named with file and field)', async () => {
    expectOneLineError(await runCli(['run', '--config', join(dir, 'nope.yaml')]), /--config .*nope\.yaml: cannot read file \(ENOENT\)/);
    expectOneLineError(await runCli(['run', '--config', file('bad.yaml', 'load: [unclosed')]), /--config .*bad\.yaml: not valid YAML/);
    expectOneLineError(await runCli(['run', '--config', file('bad.json', '{"load": ')]), /not valid JSON/);
    expectOneLineError(await runCli(['run', '--config', file('extra.yaml', 'load:\n  request_rte: 5\n')]), /extra\.yaml: load: unknown field\(s\) "request_rte"/);
    expectOneLineError(await runCli(['run', '--config', file('val.yaml', 'load:\n  burstiness: -1\n')]), /val\.yaml: load\.burstiness: /);
  });

  it('a trace with impossible lengths or a far-future timestamp is refused with file, line and field (was a native abort, exit 134)', async () => {
    const row = (t: number, inp: number, out = 4) => JSON.stringify({ timestamp: t, input_length: inp, output_length: out });
    for (const [name, rows, pattern] of [
      ['neg.jsonl', [row(0, 3), row(10, -16)], /^error: .*neg\.jsonl:2: input_length -16: expected a whole number of tokens from 1 to 10,000,000$/],
      ['zero.jsonl', [row(0, 0)], /^error: .*zero\.jsonl:1: input_length 0: expected a whole number of tokens from 1 to 10,000,000$/],
      ['huge.jsonl', [row(0, 3), row(5, 3), row(10, 1e9)], /^error: .*huge\.jsonl:3: input_length 1000000000: expected a whole number/],
      ['frac.jsonl', [row(0, 3, 2.5)], /^error: .*frac\.jsonl:1: output_length 2\.5: expected a whole number of tokens from 0 to/],
      ['far.jsonl', [row(0, 3), row(1e12, 3)], /^error: .*far\.jsonl:2: timestamp: replayed 277777\.8 h after the first request, beyond the 168 h a replay may span/],
    ] as const) {
      const path = file(name, rows.join('\n') + '\n');
      expectOneLineError(await runCli(['run', '--base-url', sim.url, '--no-preflight', '--dataset-name', 'trace', '--dataset-path', path, '--no-save', '--progress', 'none']), pattern);
    }
    const azure = file('zero.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n0,5,1\n1,0,3\n');
    expectOneLineError(await runCli(['run', '--base-url', sim.url, '--no-preflight', '--dataset-name', 'trace', '--dataset-path', azure, '--no-save']), /zero\.csv:3: ContextTokens 0: expected a whole number/);
  });

  it('an unreachable server fails pre-flight with one line naming the URL', async () => {
    const closed = await startSimServer({});
    const url = closed.url;
    await closed.close();
    const out = await runCli(['run', '--base-url', url, '--num-prompts', '1']);
    expect(out.stderr).toContain(url);
    expectOneLineError(out, /--base-url http:\/\/127\.0\.0\.1:\d+: cannot reach the server \(ECONNREFUSED\)/);
  });

  it('a model the server does not serve fails pre-flight and lists what it serves', async () => {
    const out = await runCli(['run', '--base-url', sim.url, '--model', 'other', '--num-prompts', '1']);
    expectOneLineError(out, /--model other: not served by .* \(it serves: m1\)/);
  });

  it('analyze: missing path and a corrupt record line (file:line)', async () => {
    expectOneLineError(await runCli(['analyze', join(dir, 'missing')]), /no such run directory/);
    const bad = file('records.jsonl', '{"id":0,"status":"ok","sent_ms":0,"end_ms":5,"chunk_ms":[]}\n{"id":1,"status":"weird","sent_ms":0,"end_ms":1}\n');
    expectOneLineError(await runCli(['analyze', bad]), /records\.jsonl:2: unknown status "weird"/);
  });

  it('help and version exit 0', async () => {
    const help = await runCli(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--request-rate');
    expect(help.stdout).toContain('--random-input-len');
    expect((await runCli(['--version'])).code).toBe(0);
  });

  it('schema prints the JSON Schema of the run spec', async () => {
    const out = await runCli(['schema']);
    expect(out.code).toBe(0);
    const schema = JSON.parse(out.stdout) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['target', 'load', 'workload', 'goodput', 'output']));
    expect(schema.properties.load!.properties).toHaveProperty('request_rate');
  });
});
