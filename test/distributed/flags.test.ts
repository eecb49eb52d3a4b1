/** The distributed flags: what is refused, in one line, before anything connects. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('distributed flags', () => {
  it.each([
    [['run', '--distributed', 'nats://127.0.0.1:1'], /--workers-expected: required with --distributed/],
    [['run', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '0'], /--workers-expected: expected a whole number from 1 to 10000, got "0"/],
    [['run', '--workers-expected', '3'], /--workers-expected: only with --distributed/],
    [['run', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '2', '--run-id', 'a.b'], /--run-id: "a.b" must be 1–64 letters, digits, "-" or "_"/],
    [['run', '--distributed', 'http://127.0.0.1:1', '--workers-expected', '2'], /--distributed: expected nats:\/\/HOST:PORT, got "http:\/\/127.0.0.1:1"/],
    [['worker', '--nats', 'nats://127.0.0.1:1'], /--index: required \(or \$JOB_COMPLETION_INDEX/],
    [['worker', '--nats', 'nats://127.0.0.1:1', '--index', '-1'], /--index: expected a whole number ≥ 0, got "-1"/],
    [['worker', '--nats', 'nats://127.0.0.1:1', '--index', '0', '--wait', '1s'], /--nats nats:\/\/127.0.0.1:1: cannot connect to NATS/],
    [['sweep', '--distributed', 'nats://127.0.0.1:1', '--request-rates', '1,2'], /--workers-expected: required with --distributed/],
    [['sweep', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '2', '--request-rates', '1,2'], /--distributed: give each stage's length with --num-prompts and\/or --duration/],
    [['run', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '3', '--concurrency', '2'], /--concurrency 2: below --workers-expected 3, some workers would have no user/],
    [['run', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '2', '--otlp-receiver', '127.0.0.1:0'], /--otlp-receiver: not supported with --distributed yet/],
    [['run', '--distributed', 'nats://127.0.0.1:1', '--workers-expected', '2', '--spans', 'x.jsonl'], /--spans: not supported with --distributed yet/],
  ])('%j', async (argv, message) => {
    const out = await runCli(argv);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('the index comes from $JOB_COMPLETION_INDEX when --index is not given', async () => {
    const out = await runCli(['worker', '--nats', 'nats://127.0.0.1:1', '--wait', '1s'], { JOB_COMPLETION_INDEX: 'x' });
    expect(out.stderr).toMatch(/\$JOB_COMPLETION_INDEX: expected a whole number ≥ 0, got "x"/);
  });
});
