/**
 * Trace replay (`--dataset-name trace`): timestamped requests sent at their own times.
 * - Mooncake JSONL: `{"timestamp": ms, "input_length": n, "output_length": m, "hash_ids": [..]}`;
 *   hash_ids name the prompt's blocks of `trace_block_size` tokens (512 in the published traces):
 *   equal ids → identical block text, so the trace's prefix sharing reaches the server.
 * - Azure LLM inference CSV: `TIMESTAMP,ContextTokens,GeneratedTokens`, TIMESTAMP a date-time
 *   (`2023-11-16 18:15:46.6805900`, UTC) or a number of seconds.
 * Send time: at_ms = (t − t₀) · trace_time_scale / trace_rate_scale, t₀ the earliest timestamp.
 */
import { UserError } from '../../errors/user-error.js';
import { createRng } from '../../util/rng.js';
import type { Rng } from '../../util/rng.js';
import type { SubWorkloadSpec } from '../spec.js';
import type { TextMaker } from '../synthetic.js';
import type { TimedItem, WorkItem, Workload } from '../types.js';
import { lengthSampler } from '../lengths.js';
import { csvRecords } from './csv.js';
import { subdivideIds } from './blocks.js';
import { Issues } from './entries.js';
import { readText } from './sharegpt.js';
import { MAX_TOKENS_ASKED } from '../spec.js';

/**
 * Longest replay accepted, after --trace-time-scale / --trace-rate-scale: 7 days. Longer, and a
 * mistyped timestamp (seconds read as ms, one row far in the future) would keep a run waiting
 * for days; a real trace that long is replayed faster with --trace-rate-scale.
 */
export const MAX_TRACE_SPAN_MS = 7 * 24 * 3600 * 1000;

export interface TraceRow {
  t_ms: number;
  input: number;
  output: number;
  hash_ids: number[] | null;
  line: number;
}

export function detectFormat(path: string, text: string): 'mooncake' | 'azure' {
  if (/\.csv$/i.test(path)) return 'azure';
  if (/\.jsonl?$/i.test(path)) return 'mooncake';
  return text.trimStart().startsWith('{') ? 'mooncake' : 'azure';
}

export function parseMooncake(text: string, issues: Issues): TraceRow[] {
  const rows: TraceRow[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      issues.skip(line, `invalid JSON (${(e as Error).message})`);
      return;
    }
    const t = o?.['timestamp'];
    const inp = o?.['input_length'];
    const out = o?.['output_length'];
    const h = o?.['hash_ids'];
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return issues.skip(line, 'timestamp must be a non-negative number (ms)');
    if (!isCount(inp)) return issues.skip(line, 'input_length must be a number of tokens');
    if (!isCount(out)) return issues.skip(line, 'output_length must be a number of tokens');
    checkLength(issues.file, line, 'input_length', inp, 1);
    checkLength(issues.file, line, 'output_length', out, 0);
    if (h !== undefined && (!Array.isArray(h) || !h.every((x) => Number.isInteger(x)))) return issues.skip(line, 'hash_ids must be an array of integers');
    rows.push({ t_ms: t, input: inp, output: out, hash_ids: (h as number[] | undefined) ?? null, line });
  });
  return rows;
}

export function parseAzure(text: string, issues: Issues): TraceRow[] {
  const { header, records } = csvRecords(text);
  for (const col of ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens']) {
    if (!header.includes(col)) throw new UserError(`${issues.file}:1: workload.dataset_path: Azure trace needs a ${col} column (header: ${header.join(',')})`);
  }
  const rows: TraceRow[] = [];
  for (const { line, record } of records) {
    const t = parseTimestamp(record['TIMESTAMP'] ?? '');
    const inp = cellNumber(record['ContextTokens']);
    const out = cellNumber(record['GeneratedTokens']);
    if (t === null) issues.skip(line, `TIMESTAMP not a date-time or number: ${JSON.stringify(record['TIMESTAMP'])}`);
    else if (!isCount(inp)) issues.skip(line, 'ContextTokens must be a number of tokens');
    else if (!isCount(out)) issues.skip(line, 'GeneratedTokens must be a number of tokens');
    else {
      checkLength(issues.file, line, 'ContextTokens', inp, 1);
      checkLength(issues.file, line, 'GeneratedTokens', out, 0);
      rows.push({ t_ms: t, input: inp, output: out, hash_ids: null, line });
    }
  }
  return rows;
}

/** A CSV cell as a number; an empty cell is no number (Number('') would be 0). */
function cellNumber(v: string | undefined): number {
  return v === undefined || v.trim() === '' ? NaN : Number(v);
}

/** A length that is not a number at all (text, null, missing): the line is malformed and skipped. */
function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * A number that cannot be a count is refused, not skipped: negative, fractional, a zero-token prompt, or more tokens than
 * any context (MAX_TOKENS_ASKED), which would also exhaust memory building the prompt text.
 */
function checkLength(file: string, line: number, field: string, v: number, min: number): void {
  if (Number.isInteger(v) && v >= min && v <= MAX_TOKENS_ASKED) return;
  throw new UserError(`${file}:${line}: ${field} ${v}: expected a whole number of tokens from ${min} to ${MAX_TOKENS_ASKED.toLocaleString('en-US')}`);
}

/**
 * Rows in time order. A trace out of order is replayed sorted, with one warning naming the first
 * row that came before its predecessor.
 */
function sortedRows(rows: TraceRow[], file: string, warn: (m: string) => void): TraceRow[] {
  const k = rows.findIndex((r, i) => i > 0 && r.t_ms < rows[i - 1]!.t_ms);
  if (k < 0) return rows;
  warn(`${file}:${rows[k]!.line}: timestamps are not in order (this row is earlier than line ${rows[k - 1]!.line}); the trace is replayed sorted by time`);
  return [...rows].sort((a, b) => a.t_ms - b.t_ms || a.line - b.line);
}

/** `YYYY-MM-DD HH:MM:SS[.fraction]` (UTC, any number of fraction digits) → ms; a bare number = seconds. */
export function parseTimestamp(s: string): number | null {
  const v = s.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]00:?00)?$/.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, se, frac] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se));
  return Number.isNaN(base) ? null : base + (frac ? Number(`0.${frac}`) * 1000 : 0);
}

/** Prompt text for a trace row: one text per hash id (cached), unique text for the rest. */
function blockTexts(maker: TextMaker, seed: number, blockSize: number) {
  const cache = new Map<number, string[]>();
  return (id: number): string[] => {
    let w = cache.get(id);
    if (!w) {
      w = maker.words(createRng(`${seed}:block:${id}`), blockSize);
      cache.set(id, w);
    }
    return w;
  };
}

export function promptFor(row: TraceRow, blockSize: number, block: (id: number) => string[], maker: TextMaker, rng: Rng): string {
  const parts: string[] = [];
  let left = row.input;
  for (const id of row.hash_ids ?? []) {
    if (left <= 0) break;
    const w = block(id);
    const take = Math.min(left, blockSize);
    parts.push(take === blockSize ? w.join(' ') : w.slice(0, take).join(' '));
    left -= take;
  }
  if (left > 0) parts.push(maker.words(rng, left).join(' '));
  return parts.join(' ');
}

/** Fraction of prompt tokens in blocks whose hash id (and every id before it) appeared earlier. */
export function traceSharedFraction(rows: readonly TraceRow[], blockSize: number): number {
  const seen = new Set<number>();
  let shared = 0;
  let total = 0;
  for (const r of rows) {
    total += r.input;
    let left = r.input;
    let prefix = true;
    for (const id of r.hash_ids ?? []) {
      const n = Math.min(left, blockSize);
      if (prefix && seen.has(id)) shared += n;
      else prefix = false;
      left -= n;
    }
    for (const id of r.hash_ids ?? []) seen.add(id);
  }
  return total > 0 ? shared / total : 0;
}

export async function traceWorkload(
  spec: SubWorkloadSpec,
  seed: number,
  maker: TextMaker,
  warn: (m: string) => void,
  field = 'workload',
): Promise<Workload> {
  const path = spec.dataset_path;
  if (path === null) throw new UserError(`${field}.dataset_path: required for --dataset-name trace`);
  const text = await readText(path, `${field}.dataset_path`);
  const format = spec.trace_format === 'auto' ? detectFormat(path, text) : spec.trace_format;
  const issues = new Issues(path, warn);
  const rows = sortedRows(format === 'mooncake' ? parseMooncake(text, issues) : parseAzure(text, issues), path, warn);
  if (rows.length === 0) {
    throw new UserError(`${path}: no usable request in the ${format} trace (${issues.skipped} malformed)${issues.examples[0] ? `; first problem: ${issues.examples[0]}` : ''}`);
  }
  const scale = spec.trace_time_scale / spec.trace_rate_scale;
  const t0 = (rows[0] as TraceRow).t_ms;
  const far = rows.find((r) => (r.t_ms - t0) * scale > MAX_TRACE_SPAN_MS);
  if (far !== undefined) {
    const at = ((far.t_ms - t0) * scale) / 3_600_000;
    throw new UserError(
      `${path}:${far.line}: timestamp: replayed ${at.toFixed(1)} h after the first request, beyond the ${MAX_TRACE_SPAN_MS / 3_600_000} h a replay may span; is it in the unit the format expects (${format === 'mooncake' ? 'ms' : 'a date-time or seconds'})? A long trace can be replayed faster with --trace-rate-scale`,
    );
  }
  const block = blockTexts(maker, seed, spec.trace_block_size);
  const rng = createRng(`${seed}:trace`);
  const outOverride = spec.output_len ? lengthSampler(spec.output_len, rng.fork(), rows.map((r) => r.output)) : null;
  const textRng = rng.fork();
  // Fresh sub-block ids start above every subdivided trace id.
  const ratio = spec.trace_block_size % spec.prefix_block_size === 0 ? spec.trace_block_size / spec.prefix_block_size : 1;
  let nextFresh = (rows.reduce((m, r) => Math.max(m, ...(r.hash_ids ?? [0])), 0) + 1) * ratio;
  const fresh = (): number => nextFresh++;
  const timed: TimedItem[] = rows.map((r) => {
    const item: WorkItem = {
      prompt: promptFor(r, spec.trace_block_size, block, maker, textRng),
      messages: null,
      prompt_tokens: r.input,
      max_tokens: Math.max(1, outOverride ? outOverride() : r.output),
      task: null,
      expected: null,
      session: null,
      turn: null,
    };
    if (r.hash_ids) {
      const sub = subdivideIds(r.hash_ids, r.input, spec.trace_block_size, spec.prefix_block_size, fresh);
      item.prefix_hash_ids = sub.ids;
      item.prefix_block_tokens = sub.block_tokens;
    }
    return { at_ms: (r.t_ms - t0) * scale, item };
  });
  let k = 0;
  const last = (timed[timed.length - 1] as TimedItem).at_ms;
  return {
    timed,
    skipped: issues.skipped,
    next: () => (timed[k++ % timed.length] as TimedItem).item,
    lengthBounds: () => ({
      prompt: timed.reduce((m, t) => Math.max(m, t.item.prompt_tokens ?? 0), 0),
      output: timed.reduce((m, t) => Math.max(m, t.item.max_tokens ?? 0), 0),
    }),
    describe: () => ({
      dataset: 'trace',
      format,
      path,
      tokenizer: maker.tokenizer.name,
      token_counts: maker.tokenizer.exact ? 'exact' : 'estimate',
      requests: timed.length,
      skipped: issues.skipped,
      skipped_examples: issues.examples,
      time_scale: spec.trace_time_scale,
      rate_scale: spec.trace_rate_scale,
      duration_ms: last,
      mean_rate_rps: last > 0 ? ((timed.length - 1) / last) * 1000 : null,
      mean_input_tokens: rows.reduce((s, r) => s + r.input, 0) / rows.length,
      mean_output_tokens: rows.reduce((s, r) => s + r.output, 0) / rows.length,
      ...(format === 'mooncake' ? { block_size: spec.trace_block_size, expected_shared_token_fraction: traceSharedFraction(rows, spec.trace_block_size) } : {}),
    }),
    countTokens: (t) => maker.tokenizer.count(t),
  };
}
