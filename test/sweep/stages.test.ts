import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors/user-error.js';
import { autoRates, parseConcurrencyList, parseRateList } from '../../src/sweep/stages.js';

describe('stage lists', () => {
  it('reads rates (inf last) and concurrencies', () => {
    expect(parseRateList('1, 2,4.5,inf').map((s) => (s.kind === 'rate' ? s.rate : 0))).toEqual([1, 2, 4.5, Infinity]);
    expect(parseConcurrencyList('1,4,16').map((s) => (s.kind === 'concurrency' ? s.concurrency : 0))).toEqual([1, 4, 16]);
  });

  it('rejects empty, malformed and non-increasing lists with one line naming the flag', () => {
    expect(() => parseRateList(' , ')).toThrow(new UserError('--request-rates: give at least one rate, e.g. 1,2,4,8,inf'));
    expect(() => parseRateList('1,4,2')).toThrow(/--request-rates: stages must increase, but 2 follows 4/);
    expect(() => parseRateList('1,inf,8')).toThrow(/8 follows inf/);
    expect(() => parseRateList('1,fast')).toThrow(/--request-rates: expected a positive rate/);
    expect(() => parseConcurrencyList('')).toThrow(/--concurrencies: give at least one/);
    expect(() => parseConcurrencyList('4,4')).toThrow(/4 follows 4/);
    expect(() => parseConcurrencyList('1,2.5')).toThrow(/positive integers/);
  });
});

describe('autoRates', () => {
  it('spaces N rates evenly over (baseline, probe], the last at the probe’s throughput', () => {
    // b = 1, t = 9, N = 4: 1 + 8·k/4 = 3, 5, 7, 9.
    expect(autoRates(1, 9, 4)).toEqual([3, 5, 7, 9]);
    expect(autoRates(0.996, 20.837, 8)).toEqual([3.476, 5.956, 8.436, 10.92, 13.4, 15.88, 18.36, 20.84]);
  });

  it('spans 0.5–1.5× the baseline when the probe is no faster', () => {
    expect(autoRates(2, 2, 3)).toEqual([1, 2, 3]);
  });
});
