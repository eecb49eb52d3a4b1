import { describe, expect, it } from 'vitest';
import { serveSim } from '../../src/sim/serve-cli.js';

describe('serveSim (infermeter sim serve)', () => {
  it('prints one line with the URL, serves, and stops on close()', async () => {
    const lines: string[] = [];
    const s = await serveSim({ port: 0, log: (l) => lines.push(l), handleSignals: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${s.url}/v1`);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    await s.close();
    await s.stopped;
    await expect(fetch(`${s.url}/health`)).rejects.toThrow();
  });
});
