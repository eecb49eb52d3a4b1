/**
 * The cost section of a spec (`--gpu-hour-cost`, `--gpus`, `--prices`, `--gpu-type`) and the
 * price table file it may name: a price per GPU-hour per GPU model, with the date and source
 * of the prices (docs/prices.example.yaml is a documented example; docs/cost.md).
 */
import { readFileSync } from 'node:fs';
import { parseYaml } from '../util/yaml.js';
import { z } from 'zod';
import { UserError } from '../errors/user-error.js';
import { issueText } from './zod-issue.js';

export const CostSpecSchema = z
  .object({
    gpu_hour_cost: z.number().positive().nullable().default(null).describe('Price of one GPU for one hour (e.g. 2.50); overrides the price table.'),
    gpus: z.number().int().positive().nullable().default(null).describe('GPUs serving the endpoint (simulator: tensor-parallel size when not given).'),
    prices: z.string().nullable().default(null).describe('Price table file (YAML/JSON): GPU model → price per GPU-hour, with as_of and source.'),
    gpu_type: z.string().nullable().default(null).describe('GPU model to look up in the price table (simulator: its --hardware).'),
  })
  .strict();
export type CostSpec = z.output<typeof CostSpecSchema>;

export const PriceTableSchema = z
  .object({
    currency: z.string().min(1).default('USD'),
    as_of: z.union([z.string(), z.date()]).transform((v) => (v instanceof Date ? v.toISOString().slice(0, 10) : v)).describe('Date the prices were taken, e.g. 2026-05-29.'),
    source: z.string().min(1).describe('Where the prices come from (a URL, a contract, …).'),
    example: z.boolean().default(false).describe('True for illustrative prices that are not a quote.'),
    note: z.string().optional(),
    gpu_hour_cost: z.record(z.string(), z.number().positive()).refine((o) => Object.keys(o).length > 0, 'give at least one GPU model and its price'),
  })
  .strict();
export type PriceTable = z.output<typeof PriceTableSchema>;

export function readPriceTable(path: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`--prices ${path}: cannot read file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let data: unknown;
  try {
    data = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new UserError(`--prices ${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const r = PriceTableSchema.safeParse(data);
  if (!r.success) {
    throw new UserError(`--prices ${path}: ${issueText(r.error.issues[0]!)}`);
  }
  return r.data;
}

/** The price per GPU-hour of `gpuType` in the table (case-insensitive), or a UserError naming the known ones. */
export function lookupPrice(table: PriceTable, gpuType: string, path: string): number {
  const key = Object.keys(table.gpu_hour_cost).find((k) => k.toLowerCase() === gpuType.toLowerCase());
  if (key === undefined) throw new UserError(`--prices ${path}: no price for GPU "${gpuType}" (the table has ${Object.keys(table.gpu_hour_cost).join(', ')})`);
  return table.gpu_hour_cost[key]!;
}
