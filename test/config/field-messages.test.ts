/**
 * Messages that name the cause (issue 24): every documented field of the run spec, the price
 * table and the SLO object, given a wrong value, is refused with a message naming that field and
 * the form it expects — never zod's bare "Invalid input".
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunSpecSchema, SloListSchema } from '../../src/session/run-spec.js';
import { validateSpec } from '../../src/config/load-spec.js';
import { PriceTableSchema } from '../../src/config/prices.js';
import { issueText } from '../../src/config/zod-issue.js';

/** The object schema inside defaults, prefaults, optionals and pipes; null when it is not an object. */
function objectShape(s: z.ZodType): Record<string, z.ZodType> | null {
  let cur: unknown = s;
  for (let i = 0; i < 10 && cur; i++) {
    if (cur instanceof z.ZodObject) return cur.shape as Record<string, z.ZodType>;
    const def = (cur as { _zod?: { def?: { innerType?: unknown; in?: unknown; schema?: unknown } } })._zod?.def;
    cur = def?.innerType ?? def?.in ?? def?.schema;
  }
  return null;
}

/** A value no field accepts: an array holding an array (not text, number, flag, object or a list of either). */
const WRONG = [[Symbol.for('wrong')]];

function leafFields(shape: Record<string, z.ZodType>, prefix: string[]): string[][] {
  return Object.entries(shape).flatMap(([k, v]) => {
    if (k === '$schema') return [];
    const inner = objectShape(v);
    return inner ? leafFields(inner, [...prefix, k]) : [[...prefix, k]];
  });
}

function specWith(path: string[], value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  path.slice(0, -1).forEach((k) => (node = node[k] = {} as Record<string, unknown>));
  node[path[path.length - 1]!] = value;
  return root;
}

describe('every field of the run spec names itself when wrong', () => {
  const fields = leafFields(objectShape(RunSpecSchema)!, []);
  it('walks the fields of every section', () => {
    // A sanity floor: the walk reached into the sections (target, load, workload, output, …).
    expect(fields.length).toBeGreaterThan(60);
    for (const section of ['target', 'load', 'workload', 'output', 'validity', 'cost', 'observe']) {
      expect(fields.some((f) => f[0] === section), section).toBe(true);
    }
  });
  it.each(fields.map((f) => [f.join('.'), f] as const))('%s', (dotted, path) => {
    let message = '';
    try {
      validateSpec(RunSpecSchema, specWith(path, WRONG), { flagPaths: new Map(), configPath: 'spec.yaml' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message, `a wrong ${dotted} was accepted`).not.toBe('');
    expect(message.startsWith(`spec.yaml: ${dotted}`), message).toBe(true);
    expect(message).not.toMatch(/Invalid input$|Invalid key in record|received undefined/);
  });
});

describe('the price table', () => {
  const good = { currency: 'USD', as_of: '2026-05-29', source: 'a quote', gpu_hour_cost: { H100: 2.5 } };
  it.each(Object.keys(objectShape(PriceTableSchema)!))('%s, wrong or missing', (field) => {
    const wrong = PriceTableSchema.safeParse({ ...good, [field]: WRONG });
    expect(wrong.success).toBe(false);
    expect(issueText(wrong.error!.issues[0]!)).toMatch(new RegExp(`^${field}: (expected|key|required)`));
  });
  it('a missing required key is named as missing with its form', () => {
    for (const [field, form] of [['as_of', 'a string or a date'], ['source', 'a string'], ['gpu_hour_cost', 'a record']] as const) {
      const { [field]: _gone, ...rest } = good;
      const r = PriceTableSchema.safeParse(rest);
      expect(issueText(r.error!.issues[0]!)).toBe(`${field}: required field is missing (expected ${form})`);
    }
    const r = PriceTableSchema.safeParse({ ...good, gpu_hour_cost: { H100: -1 } });
    expect(issueText(r.error!.issues[0]!)).toMatch(/^gpu_hour_cost\.H100: /);
  });
});

describe('the SLO object', () => {
  const good = { metric: 'ttft', statistic: 'p95', op: '<', threshold: '1s', window: '5m', attainment: '99%' };
  const objectFields = ['metric', 'statistic', 'op', 'threshold', 'window', 'attainment'];
  it.each(objectFields)('%s, wrong', (field) => {
    const r = SloListSchema.safeParse([{ ...good, [field]: WRONG }]);
    expect(r.success).toBe(false);
    expect(issueText(r.error!.issues[0]!)).toMatch(new RegExp(`^0\\.${field}: expected`));
  });
  it('without a threshold, or with an unknown operator, says so (was "Invalid input")', () => {
    const { threshold: _t, ...noThreshold } = good;
    expect(issueText(SloListSchema.safeParse([noThreshold]).error!.issues[0]!)).toBe('0.threshold: required field is missing (expected a string or a number)');
    expect(issueText(SloListSchema.safeParse([{ ...good, op: '=~' }]).error!.issues[0]!)).toBe('0.op: expected one of "<", "<=", ">", ">="');
  });
});
