/**
 * JUnit XML of a command's gates (analysis/gates.ts), in the Jenkins/Surefire form CI systems
 * read (Jenkins' junit and xunit plugins, GitLab, GitHub test reporters): one <testsuite> per
 * suite (a run, a compared pair), one <testcase> per gate, a failed gate a <failure> whose
 * message holds the measured value and the threshold. The shape is checked against the schema
 * in test/fixtures/junit.xsd.
 */
import { writeFileSync } from 'node:fs';
import { UserError } from '../errors/user-error.js';
import { unwritableReason } from '../util/writable-path.js';
import type { Gate } from '../analysis/gates.js';

const escape = (s: string): string =>
  s
    // Characters XML 1.0 cannot hold at all are dropped.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** `command`: the testcases' classname prefix (`infermeter.compare`). */
export function junitXml(command: string, gates: readonly Gate[], o: { timestamp: string }): string {
  const suites = new Map<string, Gate[]>();
  for (const g of gates) suites.set(g.suite, [...(suites.get(g.suite) ?? []), g]);
  const failures = gates.filter((g) => !g.pass).length;
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${escape(command)}" tests="${gates.length}" failures="${failures}" errors="0" time="0">`];
  for (const [suite, cases] of suites) {
    const failed = cases.filter((g) => !g.pass).length;
    out.push(`  <testsuite name="${escape(suite)}" tests="${cases.length}" failures="${failed}" errors="0" skipped="0" time="0" timestamp="${escape(o.timestamp)}">`);
    for (const g of cases) {
      const head = `    <testcase name="${escape(g.name)}" classname="${escape(command)}" time="0"`;
      if (g.pass) {
        out.push(`${head}/>`);
        continue;
      }
      const figures = [g.measured !== null ? `measured ${g.measured}` : '', g.threshold !== null ? `threshold ${g.threshold}` : ''].filter(Boolean).join(', ');
      const message = figures ? `${figures}: ${g.message}` : g.message;
      out.push(`${head}>`, `      <failure type="gate" message="${escape(message)}">${escape(message)}</failure>`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

/** Refuses, before any work, a --junit path that cannot be written: one line, exit 2. */
export function checkWritable(path: string, flag: string): void {
  const why = unwritableReason(path);
  if (why) throw new UserError(`${flag} ${path}: ${why}`);
}

export function writeJunit(path: string, xml: string, flag = '--junit'): void {
  try {
    writeFileSync(path, xml);
  } catch (err) {
    throw new UserError(`${flag} ${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}
