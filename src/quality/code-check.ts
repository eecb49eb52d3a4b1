/**
 * The `code` check: extract the JavaScript from the answer, run it against the entry's tests in
 * the sandbox (code-sandbox.ts) and grade: all tests pass → correct; the code does not compile or
 * lacks the entry function → malformed; a failed test, a throw, a timeout or running out of memory
 * → wrong, with the first line of the reason.
 */
import type { CheckOutcome, QualityCheck } from './check-types.js';
import { MALFORMED_EXIT, PASS_MARKER, asScript } from './code-harness.js';
import { DEFAULT_TIMEOUT_MS, runSandboxed } from './code-sandbox.js';
import { extractCode } from './extract.js';
import { preview } from './normalize.js';
import { correct, wrong } from './outcome.js';

export async function checkCode(check: Extract<QualityCheck, { kind: 'code' }>, answer: string): Promise<CheckOutcome> {
  const timeoutMs = check.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const r = await runSandboxed({ solution: asScript(extractCode(answer)), tests: check.tests, ...(check.entry === undefined ? {} : { entry: check.entry }), timeoutMs });
  const firstLine = r.stderr.split('\n').find((l) => l.trim() !== '') ?? '';
  if (r.timedOut) return wrong(`timed out after ${timeoutMs} ms`);
  if (r.code === 0 && r.stdout.includes(PASS_MARKER)) return correct('all tests passed');
  if (r.code === MALFORMED_EXIT) return wrong(preview(firstLine, 120), 'malformed');
  if (/heap out of memory|Allocation failed|bad_alloc/i.test(r.stderr)) return wrong('ran out of memory');
  if (r.code === 0) return wrong('exited before the tests finished');
  return wrong(preview(firstLine === '' ? `exited with ${r.code ?? r.signal}` : firstLine, 120));
}
