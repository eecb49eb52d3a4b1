import { describe, expect, it } from 'vitest';
import { parseCountOrDuration, parseDurationMs, parseRate, UnitError } from '../../src/config/units.js';
import { parseGoodputSlo as parseSlo } from '../../src/config/slo.js';

describe('parseDurationMs', () => {
  it('reads units', () => {
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('10s')).toBe(10_000);
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('2m')).toBe(120_000);
    expect(parseDurationMs('1h')).toBe(3_600_000);
    expect(parseDurationMs('250us')).toBe(0.25);
  });
  it('takes bare numbers in the given unit', () => {
    expect(parseDurationMs('500')).toBe(500);
    expect(parseDurationMs('60', 's')).toBe(60_000);
    expect(parseDurationMs(30, 's')).toBe(30_000);
  });
  it('rejects junk with the accepted form in the message', () => {
    expect(() => parseDurationMs('ten seconds')).toThrow(/500ms, 10s, 2m or 1h/);
    expect(() => parseDurationMs('-5s')).toThrow(UnitError);
    expect(() => parseDurationMs('5 parsecs')).toThrow(UnitError);
  });
});

describe('parseRate', () => {
  it('reads rates and inf', () => {
    expect(parseRate('20')).toBe(20);
    expect(parseRate('20rps')).toBe(20);
    expect(parseRate('1200/m')).toBe(20);
    expect(parseRate('inf')).toBe(Infinity);
    expect(parseRate(2.5)).toBe(2.5);
  });
  it('rejects zero, negatives and junk', () => {
    expect(() => parseRate('0')).toThrow(/positive rate/);
    expect(() => parseRate('-1')).toThrow(UnitError);
    expect(() => parseRate('fast')).toThrow(UnitError);
  });
});

describe('parseCountOrDuration', () => {
  it('a bare integer is a request count, a unit makes a duration', () => {
    expect(parseCountOrDuration('20')).toEqual({ requests: 20 });
    expect(parseCountOrDuration(0)).toEqual({ requests: 0 });
    expect(parseCountOrDuration('30s')).toEqual({ duration_ms: 30_000 });
    expect(() => parseCountOrDuration('soon')).toThrow(/request count/);
  });
});

describe('parseSlo', () => {
  it('reads vLLM-style METRIC:MS and units', () => {
    expect(parseSlo('ttft:500')).toEqual({ metric: 'ttft_ms', threshold_ms: 500 });
    expect(parseSlo('tpot:50ms')).toEqual({ metric: 'tpot_ms', threshold_ms: 50 });
    expect(parseSlo('e2el:10s')).toEqual({ metric: 'e2el_ms', threshold_ms: 10_000 });
    expect(parseSlo('ttft_from_schedule:1s')).toEqual({ metric: 'ttft_from_schedule_ms', threshold_ms: 1000 });
  });
  it('names the valid metrics on a typo', () => {
    expect(() => parseSlo('ttf:500')).toThrow(/unknown SLO metric "ttf".*ttft, tpot/);
    expect(() => parseSlo('ttft')).toThrow(/METRIC:THRESHOLD/);
  });
});
