/**
 * The README's shown outputs cannot go stale unnoticed: every block scripts/readme-outputs.ts
 * makes has its marker in the README, and the virtual-time ones (a fixed seed: the same output
 * on every machine) equal a fresh run's line for line. The real-time blocks are checked in
 * shape by `npm run readme:outputs -- --check` (they take minutes and their figures move).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agrees, BLOCKS, locateBlock, README, renderBlock, shape } from '../../scripts/readme-outputs.js';

const readme = readFileSync(README, 'utf8');

describe('README outputs', () => {
  it('every block has its marker and fenced text in the README', () => {
    for (const b of BLOCKS) expect(locateBlock(readme, b.id).text.length, b.id).toBeGreaterThan(0);
  });

  it.each(BLOCKS.filter((b) => b.deterministic).map((b) => [b.id, b] as const))('%s: the README shows what a fresh run prints', async (_id, b) => {
    const fresh = await renderBlock(b);
    expect(locateBlock(readme, b.id).text).toBe(fresh);
  });

  it('a real-time block agrees in shape: figures may move, words, columns and lines may not', () => {
    const b = BLOCKS.find((x) => !x.deterministic)!;
    const shown = 'TTFT (ms)   100   61.75   24.30\nRun validity: VALID (the client kept its schedule)';
    expect(shape(shown)).toBe('TTFT (ms) # # #\nRun validity: VALID (the client kept its schedule)');
    expect(agrees(b, shown, 'TTFT (ms)   100   58.1   1,024.30\nRun validity: VALID (the client kept its schedule)')).toBe(true);
    expect(agrees(b, shown, 'TTFT (ms)   100   58.1\nRun validity: VALID (the client kept its schedule)')).toBe(false);
    expect(agrees(b, shown, 'TTFT (ms)   100   61.75   24.30\nRun validity: INVALID (client saturated)')).toBe(false);
  });
});
