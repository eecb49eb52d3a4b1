/**
 * The cost flags → the price and GPU count a result is costed with. The simulator supplies
 * defaults (its GPU model and tensor-parallel size); a real server needs them stated.
 */
import { UserError } from '../errors/user-error.js';
import { lookupPrice, readPriceTable, type CostSpec } from '../config/prices.js';
import type { CostInputs } from '../metrics/cost.js';

export interface CostDefaults {
  /** GPUs of the simulated engine (tensor-parallel size × replicas); null for a real server. */
  gpus: number | null;
  /** The simulated GPU model; null for a real server. */
  gpuType: string | null;
}

/** Null when no price was given (no cost figures). */
export function resolveCostInputs(cost: CostSpec, defaults: CostDefaults): CostInputs | null {
  if (cost.gpu_hour_cost === null && cost.prices === null) {
    if (cost.gpus !== null || cost.gpu_type !== null) throw new UserError(`${cost.gpus !== null ? '--gpus' : '--gpu-type'} is for cost figures: add --gpu-hour-cost or --prices`);
    return null;
  }
  const gpuType = cost.gpu_type ?? defaults.gpuType;
  let price: number;
  let source: string;
  let currency = 'USD';
  if (cost.gpu_hour_cost !== null) {
    price = cost.gpu_hour_cost;
    source = '--gpu-hour-cost';
  } else {
    const path = cost.prices!;
    const table = readPriceTable(path);
    if (gpuType === null) throw new UserError(`--prices ${path}: add --gpu-type (the GPU model serving the endpoint, one of ${Object.keys(table.gpu_hour_cost).join(', ')})`);
    price = lookupPrice(table, gpuType, path);
    currency = table.currency;
    source = `${path} (as of ${table.as_of}; ${table.source}${table.example ? '; EXAMPLE prices' : ''})`;
  }
  const gpus = cost.gpus ?? defaults.gpus;
  if (gpus === null) throw new UserError(`${cost.gpu_hour_cost !== null ? '--gpu-hour-cost' : '--prices'}: add --gpus (how many GPUs serve the endpoint)`);
  return { gpu_hour_cost: price, gpus, currency, gpu_type: gpuType, price_source: source };
}
