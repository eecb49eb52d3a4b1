import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/analysis/gates.js';
import { gateLines } from '../../src/analysis/gates.js';
import { gatesMarkdown } from '../../src/export/ci-summary.js';
import { checkWritable, junitXml } from '../../src/export/junit.js';
import { junitErrors } from '../helpers/junit.js';

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
