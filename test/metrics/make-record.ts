/** Test helper: a RequestRecord from the few fields a test cares about. */

import { emptyRecord, type RequestRecord } from '../../src/record/record.js';

export interface RecordInit extends Partial<Omit<RequestRecord, 'chunk_ms'>> {
  /** Chunk arrival times; first_token_ms defaults to the first one. */
  chunks?: number[];
}

let nextId = 0;

export function rec(init: RecordInit): RequestRecord {
  const { chunks, ...fields } = init;
  const r = emptyRecord(nextId++, init.scheduled_ms ?? init.sent_ms ?? 0);
  const chunkMs = Float64Array.from(chunks ?? []);
  return {
    ...r,
    sent_ms: init.sent_ms ?? r.scheduled_ms,
    first_token_ms: chunkMs.length > 0 ? chunkMs[0]! : null,
    end_ms: chunkMs.length > 0 ? chunkMs[chunkMs.length - 1]! : r.scheduled_ms,
    output_tokens: chunkMs.length,
    token_source: 'usage',
    ...fields,
    chunk_ms: chunkMs,
  };
}
