import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/workload/index.js';
import type { Tokenizer } from '../../src/workload/index.js';
import { createTextMaker } from '../../src/workload/synthetic.js';

/** A tokenizer that merges across spaces: a word starting with "t" swallows the next word. */
const merging: Tokenizer = {
  name: 'merging',
  exact: true,
  encode: (text) => {
    const ws = text.split(' ').filter((w) => w !== '');
    const ids: number[] = [];
    for (let i = 0; i < ws.length; i++) {
      ids.push(i);
      if (ws[i]!.startsWith('t') && i + 1 < ws.length) i++;
    }
    return ids;
  },
  count: (text) => merging.encode(text).length,
};

describe('synthetic text', () => {
  it('corrects the length when the tokenizer merges across word boundaries', () => {
    const maker = createTextMaker(merging);
    const rng = createRng(1);
    for (const n of [1, 2, 3, 10, 100, 500]) expect(merging.count(maker.text(rng, n))).toBe(n);
    const head = maker.text(rng, 40);
    for (const total of [41, 60, 300]) {
      const t = maker.extend(rng, head, total, 40);
      expect(t.startsWith(head)).toBe(true);
      expect(merging.count(t)).toBe(total);
    }
  });

  it('a head longer than the total is returned as is', () => {
    const maker = createTextMaker();
    expect(maker.extend(createRng(1), 'one two three', 2)).toBe('one two three');
  });
});
