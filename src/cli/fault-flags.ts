/**
 * Fault-injection flags of `sim serve`: [flag, help, FaultOptions field, kind]. On their own, so
 * `--help` and the other commands do not load the server (main.ts).
 */
export const FAULTS = [
  ['--fault-429-rate <p>', 'fraction of requests answered 429 with Retry-After', 'http429Rate', 'rate'],
  ['--fault-500-rate <p>', 'fraction of requests answered HTTP 500', 'http500Rate', 'rate'],
  ['--fault-oom-rate <p>', 'fraction of streams that fail with an out-of-memory error event', 'oomRate', 'rate'],
  ['--fault-disconnect-rate <p>', 'fraction of streams cut mid-way (TCP reset)', 'disconnectRate', 'rate'],
  ['--fault-stall-rate <p>', 'fraction of streams that go silent (see --fault-stall-ms)', 'stallRate', 'rate'],
  ['--fault-stall-ms <ms>', 'silence of a stalled stream before it is dropped (default 30000)', 'stallMs', 'ms'],
  ['--fault-malformed-rate <p>', 'fraction of streams with one malformed SSE line', 'malformedRate', 'rate'],
  ['--fault-slow-headers-rate <p>', 'fraction of requests whose response headers are delayed', 'slowHeadersRate', 'rate'],
  ['--fault-slow-headers-ms <ms>', 'delay of slow headers (default 2000)', 'slowHeadersMs', 'ms'],
  ['--fault-retry-after <s>', 'Retry-After seconds of injected 429s (default 1)', 'retryAfterS', 'ms'],
] as const;

export const FAULT_FLAGS: Array<[string, string]> = [
  ...FAULTS.map(([flag, help]) => [flag, help] as [string, string]),
  ['--fault-restart <at:down>', 'restart: refuse connections from AT ms after start for DOWN ms, then reset counters (e.g. 10000:3000)'],
];
