import { describe, expect, it } from 'vitest';
import { capacityPlan } from '../../src/analysis/plan/capacity.js';

describe('capacity arithmetic (hand-checked)', () => {
  it('50 req/s at 20 req/s per replica, 30% headroom, 2 GPUs per replica, $2.50/GPU-hour', () => {
    const p = capacityPlan({ traffic_rps: 50, rate_per_replica: 20, headroom: 0.3, gpus_per_replica: 2, gpu_hour_cost: 2.5, currency: 'USD' });
    // usable = 20 × 0.7 = 14; replicas = ⌈50 / 14⌉ = ⌈3.57⌉ = 4; GPUs = 4 × 2 = 8; 8 × 2.5 × 730 = 14,600
    expect(p.usable_per_replica_rps).toBeCloseTo(14, 12);
    expect(p.replicas).toBe(4);
    expect(p.gpus).toBe(8);
    expect(p.load_per_replica_rps).toBe(12.5);
    expect(p.monthly_cost).toBe(14_600);
    expect(p.lines.join('\n')).toContain('replicas                     = ⌈50 / 14⌉ = ⌈3.57⌉ = 4');
    expect(p.lines.join('\n')).toContain('monthly cost                 = 8 GPUs × $2.50/GPU-hour × 730 h = $14,600.00');
  });

  it('an exact multiple needs no extra replica; zero headroom uses the whole rate', () => {
    const p = capacityPlan({ traffic_rps: 60, rate_per_replica: 20, headroom: 0, gpus_per_replica: 1, gpu_hour_cost: null, currency: 'USD' });
    expect(p.replicas).toBe(3);
    expect(p.monthly_cost).toBeNull();
  });
});
