import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/analysis/gates.js';
import { gateLines } from '../../src/analysis/gates.js';
import { gatesMarkdown } from '../../src/export/ci-summary.js';
import { checkWritable, junitXml } from '../../src/export/junit.js';
import { junitErrors } from '../helpers/junit.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES } from '../../src/errors/exit-codes.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const gates: Gate[] = [
  { suite: 'run-1', name: 'validity', pass: true, measured: 'valid', threshold: null, message: 'the run is valid' },
  { suite: 'run-1', name: 'p99(ttft) <= 500ms', pass: false, measured: '612.5', threshold: '<= 500', message: 'p99(ttft) 612.5 ms > 500 ms' },
  { suite: 'a → b', name: 'TTFT p50 (ms)', pass: false, measured: '+20.4%', threshold: 'regression ≤ 5.0%', message: 'significantly worse: +20.4% & <"quoted">' },
];

describe('JUnit XML of the gates', () => {
  it('validates against the JUnit schema: one testsuite per suite, one testcase per gate, failures with value and threshold', async () => {
    const xml = junitXml('infermeter.run', gates, { timestamp: '2026-12-01T21:00:00Z' });
    expect(await junitErrors(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuites name="infermeter.run" tests="3" failures="2" errors="0" time="0">/);
    expect(xml).toMatch(/<testsuite name="run-1" tests="2" failures="1" errors="0"/);
    expect(xml).toMatch(/<testcase name="validity" classname="infermeter.run" time="0"\/>/);
    expect(xml).toContain('<failure type="gate" message="measured 612.5, threshold &lt;= 500: p99(ttft) 612.5 ms &gt; 500 ms">');
    expect(xml).toContain('significantly worse: +20.4% &amp; &lt;&quot;quoted&quot;&gt;');
  });

  it('the validator is not vacuous: a suite without its counts is rejected', async () => {
    const bad = junitXml('x', gates, { timestamp: 't' }).replace(/ tests="2" failures="1"/, '');
    expect((await junitErrors(bad)).join('\n')).toMatch(/tests.*required|required.*tests/i);
  });

  it('summaries list every gate, failed first', () => {
    expect(gateLines(gates)).toEqual([
      'FAIL  p99(ttft) <= 500ms — measured 612.5, threshold <= 500: p99(ttft) 612.5 ms > 500 ms',
      'FAIL  TTFT p50 (ms) — measured +20.4%, threshold regression ≤ 5.0%: significantly worse: +20.4% & <"quoted">',
      'PASS  validity — measured valid',
    ]);
    const md = gatesMarkdown(gates);
    expect(md.split('\n')[0]).toBe('**Gates: 2 of 3 FAILED**');
    expect(md.split('\n').slice(4).map((l) => l.split(' | ')[1])).toEqual(['p99(ttft) <= 500ms', 'TTFT p50 (ms)', 'validity']);
    expect(gatesMarkdown([])).toBe('**Gates:** none asked for.');
  });

  it('an unwritable --junit path is one line before any work', () => {
    expect(() => checkWritable('/nonexistent-dir/x.xml', '--junit')).toThrow(/^--junit \/nonexistent-dir\/x.xml: cannot write there \(ENOENT\)$/);
    expect(() => checkWritable(import.meta.dirname, '--junit')).toThrow(/is a directory/);
  });
});

describe('--junit on sim run, analyze and sim sweep', () => {
  const LOAD = ['--num-prompts', '60', '--request-rate', '8', '--random-input-len', '128', '--random-output-len', '16', '--seed', '1'];
  it('one testcase per gate: validity and each --slo; the failed SLO with its measured value and threshold', async () => {
    const dir = tempDir('junit-cli');
    const xmlPath = join(dir, 'run.xml');
    const run = await runCli(['sim', 'run', ...LOAD, '--slo', 'p99(ttft) < 1ms', '--slo', 'p50(ttft) < 10s', '--junit', xmlPath, '--result-dir', dir]);
    expect(run.code, run.stderr).toBe(EXIT_CODES.SLO_FAILED);
    const xml = readFileSync(xmlPath, 'utf8');
    expect(await junitErrors(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuites name="infermeter.sim-run" tests="3" failures="1" errors="0"/);
    expect(xml).toMatch(/<testcase name="validity" classname="infermeter.sim-run" time="0"\/>/);
    expect(xml).toMatch(/<testcase name="p50\(ttft\) &lt; 10s" classname="infermeter.sim-run" time="0"\/>/);
    expect(xml).toMatch(/<failure type="gate" message="measured \d+(\.\d+)?, threshold &lt; 1: /);

    // analyze of the saved run writes the same gates; an unwritable path is one line, exit 2, before any work.
    const runDir = /Run directory: (.+)/.exec(run.stdout)![1]!.trim();
    const again = join(dir, 'analyze.xml');
    expect((await runCli(['analyze', runDir, '--junit', again])).code).toBe(EXIT_CODES.SLO_FAILED);
    expect(await junitErrors(readFileSync(again, 'utf8'))).toEqual([]);
    const bad = await runCli(['analyze', runDir, '--junit', '/nonexistent-dir/a.xml']);
    expect(bad.code).toBe(EXIT_CODES.USAGE);
    expect(bad.stderr.trim().split('\n')).toEqual(['error: --junit /nonexistent-dir/a.xml: cannot write there (ENOENT)']);
    const badRun = await runCli(['sim', 'run', ...LOAD, '--junit', '/nonexistent-dir/a.xml', '--no-save']);
    expect(badRun.code).toBe(EXIT_CODES.USAGE);
    expect(badRun.stderr.trim().split('\n')).toHaveLength(1);
    expect(badRun.stderr).toMatch(/--junit: \/nonexistent-dir\/a.xml: cannot write there \(ENOENT\)/);
  });

  it('sim sweep: one suite per stage', async () => {
    const dir = tempDir('junit-sweep');
    const xmlPath = join(dir, 'sweep.xml');
    const out = await runCli(['sim', 'sweep', '--request-rates', '2,4', ...LOAD.slice(0, 2), ...LOAD.slice(4), '--slo', 'p99(ttft) < 10s', '--junit', xmlPath, '--no-save']);
    expect(out.code, out.stderr).toBe(0);
    const xml = readFileSync(xmlPath, 'utf8');
    expect(await junitErrors(xml)).toEqual([]);
    // Each stage: its validity verdict and its SLO.
    expect(xml).toMatch(/<testsuites name="infermeter.sim-sweep" tests="4" failures="0"/);
    expect(xml).toMatch(/<testsuite name="stage 1: 2 req\/s" tests="2"[^>]*>\n\s+<testcase name="validity"[^>]*\/>\n\s+<testcase name="p99\(ttft\) &lt; 10s"/);
    expect(xml).toMatch(/<testsuite name="stage 2: 4 req\/s" tests="2"/);
  });
});
