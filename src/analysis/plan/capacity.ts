/**
 * Capacity arithmetic: from a sustainable rate per replica to replicas, GPUs and monthly cost,
 * each step written out as a line a reader can check.
 *
 *   usable per replica = sustainable rate × (1 − headroom)
 *   replicas           = ⌈traffic / usable per replica⌉
 *   GPUs               = replicas × GPUs per replica
 *   load per replica   = traffic / replicas
 *   monthly cost       = GPUs × price per GPU-hour × 730 h   (730 = 8,760 h a year / 12)
 */

import { money } from '../../util/money.js';

export const HOURS_PER_MONTH = 730;

export interface CapacityInput {
  traffic_rps: number;
  /** Highest rate one replica sustains within the SLOs (req/s). */
  rate_per_replica: number;
  /** Share of capacity kept free, in [0, 1). */
  headroom: number;
  gpus_per_replica: number;
  /** Price of one GPU-hour; null: no cost line. */
  gpu_hour_cost: number | null;
  currency: string;
}

export interface CapacityPlan {
  usable_per_replica_rps: number;
  replicas: number;
  gpus: number;
  load_per_replica_rps: number;
  monthly_cost: number | null;
  /** The arithmetic, one line per step. */
  lines: string[];
}

const n2 = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(x >= 100 ? 1 : x >= 10 ? 2 : 3));

/** Plan's money: cents (util/money.ts places the currency). */
const cents = (x: number, currency: string): string => money(x, currency, 2);

export function capacityPlan(c: CapacityInput): CapacityPlan {
  if (!(c.rate_per_replica > 0)) throw new RangeError('rate_per_replica must be > 0');
  const usable = c.rate_per_replica * (1 - c.headroom);
  const exact = c.traffic_rps / usable;
  // A tiny float excess over an integer (50 / 2.5 = 20.000000000000004) is not a 21st replica.
  const replicas = Math.max(1, Math.ceil(exact - 1e-9));
  const gpus = replicas * c.gpus_per_replica;
  const load = c.traffic_rps / replicas;
  const monthly = c.gpu_hour_cost === null ? null : gpus * c.gpu_hour_cost * HOURS_PER_MONTH;
  const pct = `${n2(c.headroom * 100)}%`;
  const lines = [
    `sustainable rate per replica = ${n2(c.rate_per_replica)} req/s (highest rate meeting every SLO)`,
    `usable per replica           = ${n2(c.rate_per_replica)} × (1 − ${pct} headroom) = ${n2(usable)} req/s`,
    `replicas                     = ⌈${n2(c.traffic_rps)} / ${n2(usable)}⌉ = ⌈${exact.toFixed(2)}⌉ = ${replicas}`,
    `GPUs                         = ${replicas} replicas × ${c.gpus_per_replica} GPU${c.gpus_per_replica > 1 ? 's' : ''} per replica = ${gpus}`,
    `load per replica             = ${n2(c.traffic_rps)} / ${replicas} = ${n2(load)} req/s`,
  ];
  if (monthly !== null) lines.push(`monthly cost                 = ${gpus} GPUs × ${cents(c.gpu_hour_cost!, c.currency)}/GPU-hour × ${HOURS_PER_MONTH} h = ${cents(monthly, c.currency)}`);
  return { usable_per_replica_rps: usable, replicas, gpus, load_per_replica_rps: load, monthly_cost: monthly, lines };
}
