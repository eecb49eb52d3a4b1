/**
 * Finding, in records read back, the step timeline a virtual run's records share (issue 31). In
 * virtual time every token is stamped with the end of the step that made it and a decoding
 * sequence gets one at every step, so most records' chunk times are a stretch of one sorted list
 * of step ends (record/step-stretch.ts). records.jsonl writes each record's times on its own;
 * found again, a record is (first step, count) instead of its gaps, and figures pooled over chunk
 * gaps (ITL) are computed per step instead of per token — the same multiset of values.
 *
 * findSharedTimeline takes the candidate records' first and last times (whole µs) and a decoder
 * of their times; it visits them by first time and grows one timeline:
 *   - a record whose first time is past the timeline's end appends all its times;
 *   - one whose first time is on the timeline must match it time for time from there, then
 *     appends its times past the end;
 *   - anything else (its first time not on the timeline, a time that differs, times that do not
 *     strictly increase) is not a stretch and adds nothing.
 *
 * Invariants:
 * - The timeline strictly increases, and a record found on it at `first` has exactly the times
 *   timeline[first … first + count): checked value for value, never assumed. Which records are
 *   found depends on the order of visits; that each one found is exact does not.
 * - A record is decoded only when its first time is on the timeline or past its end: where
 *   records do not share times (a real server's streams), most are refused on their first time.
 */

/** What findSharedTimeline reads of the candidate records, by candidate index 0 … n − 1. */
export interface TimelineCandidates {
  readonly n: number;
  /** First chunk time, whole µs. */
  firstMicros(c: number): number;
  /** Chunk count (≥ 2). */
  count(c: number): number;
  /** Writes the candidate's chunk times as whole µs into out[0 … count). */
  decodeMicros(c: number, out: Float64Array): void;
}

export interface SharedTimelineFound {
  /** Step times, whole µs, strictly increasing. */
  micros: Float64Array;
  /** Per candidate, its first step on `micros`, or −1 when it is not a stretch of it. */
  first: Int32Array;
  /** How many candidates are stretches. */
  found: number;
  /** Their chunk times in all. */
  chunks: number;
}

export function findSharedTimeline(cands: TimelineCandidates): SharedTimelineFound {
  const n = cands.n;
  const order = orderByKey(n, (c) => cands.firstMicros(c));
  const first = new Int32Array(n).fill(-1);
  let tl = new Float64Array(Math.max(1024, n));
  let len = 0;
  let buf = new Float64Array(256);
  let p = 0;
  let found = 0;
  let chunks = 0;
  for (let o = 0; o < n; o++) {
    const c = order[o]!;
    const base = cands.firstMicros(c);
    // Candidates come by first time, so the place of each first time only moves forward.
    while (p < len && tl[p]! < base) p++;
    if (p < len && tl[p] !== base) continue;
    const count = cands.count(c);
    if (count > buf.length) buf = new Float64Array(count * 2);
    cands.decodeMicros(c, buf);
    let k = 0;
    while (k < count && p + k < len && tl[p + k] === buf[k]) k++;
    if (k < count && p + k < len) continue;
    // buf[k] is past the end (or k = count): the rest must strictly increase.
    let ok = true;
    for (let m = Math.max(k, 1); m < count && ok; m++) ok = buf[m]! > buf[m - 1]!;
    if (!ok) continue;
    if (len + count - k > tl.length) {
      const grown = new Float64Array(Math.max(tl.length * 2, len + count - k));
      grown.set(tl.subarray(0, len));
      tl = grown;
    }
    for (; k < count; k++) tl[len++] = buf[k]!;
    first[c] = p;
    found++;
    chunks += count;
  }
  return { micros: tl.slice(0, len), first, found, chunks };
}

/**
 * The indices 0 … n − 1 in order of key(i), ties in index order: a counting sort into n buckets
 * by the key's place in [min, max], then an insertion sort of each bucket (keys spread over
 * their range, as records' first times do, leave a few per bucket). Linear for such keys, and no
 * comparator call per comparison (what sorting an index array by its keys with Array.sort costs).
 */
export function orderByKey(n: number, key: (i: number) => number): Int32Array {
  const keys = new Float64Array(n);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = key(i);
    keys[i] = k;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  const out = new Int32Array(n);
  if (n === 0) return out;
  const span = max - min;
  const bucketOf = (k: number): number => (span > 0 ? Math.min(n - 1, Math.floor(((k - min) / span) * n)) : 0);
  const starts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) starts[bucketOf(keys[i]!) + 1]!++;
  for (let b = 0; b < n; b++) starts[b + 1]! += starts[b]!;
  const fill = starts.slice(0, n);
  for (let i = 0; i < n; i++) out[fill[bucketOf(keys[i]!)]!++] = i;
  for (let b = 0; b < n; b++) {
    const lo = starts[b]!;
    const hi = starts[b + 1]!;
    for (let j = lo + 1; j < hi; j++) {
      const v = out[j]!;
      const kv = keys[v]!;
      let q = j - 1;
      // Stable: a key moves only past larger ones (indices entered each bucket in order).
      while (q >= lo && keys[out[q]!]! > kv) {
        out[q + 1] = out[q]!;
        q--;
      }
      out[q + 1] = v;
    }
  }
  return out;
}
