/**
 * `infermeter export RUN_DIR --format csv,parquet,markdown [--out-dir DIR]`: the run's
 * records and summary in other formats (docs/report.md §Exports). The vLLM-compatible JSON
 * is `run`/`analyze --vllm-json`.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors/user-error.js';
import { csvPiecesOfBatches, summaryCsv } from '../export/csv-export.js';
import { markdownSummary } from '../export/markdown-export.js';
import { writeParquetOfBatches } from '../export/parquet-export.js';
import { loadRunBundle, loadSweepBundle } from '../report/render-report.js';
import { isSweepDir } from '../store/run-bundle.js';
import { indexRecordsById, recordBatchesById, type RecordsById } from '../store/records-by-id.js';
import { sweepMarkdown, sweepSummaryCsv } from '../export/sweep-export.js';
import type { CliIo } from './io.js';
import { unwritableDirReason } from '../util/writable-path.js';

export const EXPORT_FORMATS = ['csv', 'parquet', 'markdown'] as const;
type Format = (typeof EXPORT_FORMATS)[number];

/** Fixed file names, so scripts can find them. */
export const EXPORT_FILES = {
  recordsCsv: 'records.csv',
  summaryCsv: 'summary.csv',
  parquet: 'records.parquet',
  markdown: 'summary.md',
  chartsDir: 'summary-charts',
} as const;

function parseFormats(raw: string): Format[] {
  const list = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const bad = list.filter((f) => !(EXPORT_FORMATS as readonly string[]).includes(f));
  if (list.length === 0 || bad.length) throw new UserError(`--format ${raw}: expected one or more of ${EXPORT_FORMATS.join(', ')} (comma-separated)`);
  return [...new Set(list)] as Format[];
}

function write(path: string, text: string): void {
  writePieces(path, [text]);
}

/** Writes the pieces one after another, each as it is made. */
function writePieces(path: string, pieces: Iterable<string>): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'w');
    for (const piece of pieces) writeSync(fd, piece);
  } catch (err) {
    throw new UserError(`--out-dir: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

export async function exportCommand(dir: string, opts: { format: string; outDir?: string }, io: CliIo): Promise<number> {
  const formats = parseFormats(opts.format);
  // Before the run is read (seconds for a long one): a folder nothing can be written to is refused first.
  const unwritable = unwritableDirReason(opts.outDir ?? dir);
  if (unwritable) throw new UserError(`${opts.outDir !== undefined ? '--out-dir ' : ''}${opts.outDir ?? dir}: ${unwritable}${opts.outDir === undefined ? '; give --out-dir' : ''}`);
  const warn = (line: string): void => void io.stderr.write(`${line}\n`);
  // CSV and Parquet stream the records in id order (store/records-by-id.ts: one checking pass, then
  // a batch at a time); only the Markdown summary reads the run's records whole, for its figures.
  const whole = formats.includes('markdown') ? undefined : [];
  const sweep = isSweepDir(dir) ? loadSweepBundle(dir, whole) : null;
  const bundle = sweep ? null : loadRunBundle(dir, whole, undefined, warn);
  const recordsPath = join(dir, 'records.jsonl');
  let index: RecordsById | null = null;
  const indexed = (): RecordsById => {
    // A sweep's reader gives no warning line (render-report.ts loadSweepBundle), nor does this one; a run's does.
    index ??= existsSync(recordsPath)
      ? indexRecordsById(recordsPath, sweep || whole === undefined ? {} : { warn })
      : { path: recordsPath, count: 0, offsets: new Float64Array(0), lengths: new Int32Array(0) };
    return index;
  };
  if (formats.includes('csv') || formats.includes('parquet')) indexed();
  const outDir = opts.outDir ?? dir;
  try {
    mkdirSync(outDir, { recursive: true });
  } catch (err) {
    throw new UserError(`--out-dir ${outDir}: cannot create (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const written: string[] = [];
  for (const format of formats) {
    if (format === 'csv') {
      writePieces(join(outDir, EXPORT_FILES.recordsCsv), csvPiecesOfBatches(recordBatchesById(indexed())));
      write(join(outDir, EXPORT_FILES.summaryCsv), sweep ? sweepSummaryCsv(sweep.doc) : summaryCsv(bundle!.result));
      written.push(join(outDir, EXPORT_FILES.recordsCsv), join(outDir, EXPORT_FILES.summaryCsv));
    } else if (format === 'parquet') {
      const path = join(outDir, EXPORT_FILES.parquet);
      try {
        await writeParquetOfBatches(recordBatchesById(indexed()), path);
      } catch (err) {
        throw new UserError(`cannot write ${path}: ${(err as Error).message.split('\n')[0]}`);
      }
      written.push(path);
    } else if (sweep) {
      // A sweep's summary is its curve and stage table; the charts are the HTML report's.
      write(join(outDir, EXPORT_FILES.markdown), sweepMarkdown(sweep.doc));
      written.push(join(outDir, EXPORT_FILES.markdown));
    } else {
      const md = await markdownSummary(bundle!, EXPORT_FILES.chartsDir);
      const chartsDir = join(outDir, EXPORT_FILES.chartsDir);
      mkdirSync(chartsDir, { recursive: true });
      for (const [name, svg] of Object.entries(md.svgs)) write(join(chartsDir, name), svg);
      write(join(outDir, EXPORT_FILES.markdown), md.markdown);
      written.push(join(outDir, EXPORT_FILES.markdown), `${chartsDir}/ (${Object.keys(md.svgs).length} SVG charts)`);
    }
  }
  for (const w of written) io.stdout.write(`wrote ${w}\n`);
  return 0;
}
