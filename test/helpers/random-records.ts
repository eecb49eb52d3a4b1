/**
 * Random records of every kind a run writes (ok answers, errors, stalls, timeouts, cancellations,
 * retried attempts, reasoning, answer checks, trace ids, tasks and turns), with chunk times in
 * whole µs (what records.jsonl writes) or not (a file another tool wrote), and their lines.
 */
import fc from 'fast-check';
import { recordToJsonLine } from '../../src/record/jsonl.js';
import { ERROR_CLASSES, emptyRecord, type RequestRecord } from '../../src/record/record.js';

const µs = (x: number) => Math.round(x * 1000) / 1000;

/** One random record; `exact` false keeps chunk times with more than three decimals. */
export const recordArb = fc
  .record({
    sendAt: fc.double({ min: 0, max: 5000, noNaN: true }),
    lag: fc.double({ min: 0, max: 30, noNaN: true }),
    gaps: fc.array(fc.double({ min: 0, max: 80, noNaN: true }), { maxLength: 12 }),
    tail: fc.double({ min: 0, max: 50, noNaN: true }),
    status: fc.constantFrom('ok', 'ok', 'ok', 'error', 'timeout', 'cancelled'),
    errorClass: fc.constantFrom(...ERROR_CLASSES),
    retried: fc.boolean(),
    reasoning: fc.option(fc.nat({ max: 50 })),
    task: fc.constantFrom(null, 'chat', 'code'),
    turn: fc.option(fc.nat({ max: 3 })),
    phase: fc.constantFrom('measure', 'measure', 'measure', 'warmup', 'cooldown'),
    tokens: fc.option(fc.nat({ max: 400 })),
    quality: fc.option(fc.boolean()),
    trace: fc.boolean(),
    exact: fc.boolean(),
    text: fc.option(fc.string({ maxLength: 8 })),
  })
  .map((x) => {
    const sent = x.exact ? µs(x.sendAt) : x.sendAt;
    const chunks: number[] = [];
    let t = sent + x.lag;
    for (const g of x.gaps) chunks.push((t += g));
    const c = Float64Array.from(chunks, (v) => (x.exact ? µs(v) : v));
    const end = c.length > 0 ? c[c.length - 1]! + x.tail : sent + x.tail;
    const ok = x.status === 'ok';
    const r: RequestRecord = {
      ...emptyRecord(0, sent),
      phase: x.phase as RequestRecord['phase'],
      task: x.task,
      turn: x.turn,
      sent_ms: sent,
      scheduled_ms: x.exact ? µs(Math.max(0, sent - x.lag)) : Math.max(0, sent - x.lag),
      first_token_ms: c.length > 0 ? c[0]! : null,
      chunk_ms: c,
      end_ms: x.exact ? µs(end) : end,
      prompt_tokens: x.tokens,
      client_prompt_tokens: 100,
      output_tokens: ok ? c.length : 0,
      requested_output_tokens: 12,
      token_source: ok ? 'usage' : 'none',
      status: x.status as RequestRecord['status'],
      error_class: ok ? null : x.status === 'timeout' ? 'timeout' : x.status === 'cancelled' ? 'cancelled' : x.errorClass,
      http_status: ok ? null : 503,
      finish_reason: ok ? 'length' : null,
      error_message: ok ? null : `server said ${x.errorClass}`,
      output_text: x.text,
    };
    if (x.reasoning !== null && ok) Object.assign(r, { first_reasoning_ms: r.first_token_ms, first_answer_ms: r.first_token_ms, reasoning_tokens: Math.min(x.reasoning, c.length) });
    if (x.retried && !ok) Object.assign(r, { attempt: 0, retried: true, retry_after_ms: 250 });
    if (x.quality !== null && ok) r.quality = { kind: 'exact', pass: x.quality, outcome: x.quality ? 'correct' : 'wrong', reason: 'matched' };
    if (x.trace) r.trace_id = '0af7651916cd43dd8448eb211c80319c';
    return { r, exact: x.exact };
  });

/** A line as records.jsonl writes it, or, for inexact times, the record's own doubles (a file another tool wrote). */
export function lineOf(r: RequestRecord, exact: boolean): string {
  return exact ? recordToJsonLine(r) : JSON.stringify({ ...r, chunk_ms: Array.from(r.chunk_ms) });
}

