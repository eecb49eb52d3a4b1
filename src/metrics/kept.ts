/** A sublist of records without a copy when it is all of them (metrics over a long run read back). */
import type { RequestRecord } from '../record/record.js';

/**
 * The records `keep` says yes to, in order: `records` itself when it keeps all, else an array of
 * exactly their number (counted first: an array grown by push leaves its outgrown copies to the
 * collector, which for a million records is tens of MB it reclaims late).
 */
export function kept(records: readonly RequestRecord[], keep: (r: RequestRecord) => boolean): readonly RequestRecord[] {
  let n = 0;
  for (const r of records) if (keep(r)) n++;
  if (n === records.length) return records;
  const out = new Array<RequestRecord>(n);
  let k = 0;
  for (const r of records) if (keep(r)) out[k++] = r;
  return out;
}
