/** An HttpTarget against a test server, and one request sent on it (client tests). */
import { emptyRecord, type Clock, type RequestRecord } from '../../src/record/record.js';
import { HttpTarget, type TargetConfig } from '../../src/client/http-client.js';
import type { WorkItem } from '../../src/workload/types.js';

/** A streaming completions target for model `m`; `clock` defaults to real milliseconds since creation. */
export function testTarget(baseUrl: string, over: Partial<TargetConfig> = {}, clock?: Clock): HttpTarget {
  const t0 = performance.now();
  return new HttpTarget(
    { baseUrl, path: '/v1/completions', model: 'm', apiKey: null, headers: {}, extraBody: {}, stream: true, ignoreEos: false, timeoutMs: 5000, keepText: false, ...over },
    clock ?? (() => performance.now() - t0),
  );
}

/** Sends `item` once and closes the target. */
export async function sendOnce(t: HttpTarget, item: WorkItem): Promise<RequestRecord> {
  try {
    return await t.send(emptyRecord(0, 0), t.prepare(item));
  } finally {
    t.close();
  }
}
