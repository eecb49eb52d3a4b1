import { describe, expect, it } from 'vitest';
import { money } from '../../src/util/money.js';

describe('money', () => {
  it('puts the currency before the amount: $ for USD, the ISO code otherwise', () => {
    expect(money(12.345, 'USD')).toBe('$12.345'); // 1 ≤ |v| < 100: 3 digits
    expect(money(0.0213, 'EUR')).toBe('EUR 0.0213');
    expect(money(-2.5, 'GBP', 2)).toBe('GBP -2.50');
  });

  it('gives sub-cent figures enough digits and groups thousands', () => {
    expect(money(0.000041, 'USD')).toBe('$0.000041');
    expect(money(150, 'USD')).toBe('$150.00');
    expect(money(12345.678, 'USD', 2)).toBe('$12,345.68');
    expect(money(null, 'USD')).toBe('—');
  });
});
