/**
 * The real-time engine server's timeline must be the virtual driver's however late its timers
 * fire (docs/simulator.md §Ground truth). A late process can read a request whose arrival lies
 * after the end of a step whose timer has not fired yet. The API server front end serves a step's
 * token streaming before a request that arrives after the step's end (engine/frontend.ts), as
 * the virtual driver does; so that step's end must be processed before the request is handed to
 * the front end, or the request passes that work and may join the engine a step early.
 *
 * The backend's clock is driven by hand, so the timeline does not depend on this machine: before
 * each arrival the clock moves in small increments with the event loop turning (timers fire),
 * then jumps the last few milliseconds at once, so that the steps ending there are overdue when
 * the request is handed over. Whatever the interleaving, every token time must equal virtual time's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TokenSink } from '../../src/sim/backend.js';
import { EngineBackend } from '../../src/sim/engine-backend.js';
import { runVirtual } from '../../src/sim/virtual.js';
import { mulberry32 } from '../../src/sim/text.js';

interface Arrival {
  at: number;
  prompt: number;
}

// The backend's timers are fake and fired by hand: which ones have fired when a request is handed over is the test's choice.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Fires every timer due by the clock (each step or wake-up due re-arms at most one more). */
const turn = () => {
  for (let k = 0; k < 4; k++) vi.runOnlyPendingTimers();
};

/** Token times per request from the real-time backend, each request handed over `late(i)` ms after timers last ran. */
function lateServer(arrivals: Arrival[], maxTokens: number, late: (i: number) => number): number[][] {
  let clock = 0;
  const b = new EngineBackend({ kind: 'engine', hardware: 'h100', model: 'llama-3.1-8b' }, () => clock);
  const times = arrivals.map(() => [] as number[]);
  let done = 0;
  for (const [i, a] of arrivals.entries()) {
    const until = Math.max(clock, a.at - late(i));
    while (clock < until) {
      clock = Math.min(until, clock + 0.5);
      turn();
    }
    clock = a.at;
    const sink: TokenSink = {
      onAdmit: () => {},
      onToken: (_k, at) => times[i]!.push(at),
      flush: () => {},
      onDone: () => done++,
      onFail: (m) => {
        throw new Error(m);
      },
    };
    b.submit({ id: i + 1, arrivalMs: a.at, promptTokens: a.prompt, outputTokens: maxTokens, blockHashes: [] }, sink);
  }
  while (done < arrivals.length) {
    clock += 0.5;
    turn();
  }
  b.close();
  return times;
}

function virtualTimes(arrivals: Arrival[], maxTokens: number): number[][] {
  const { records } = runVirtual({ hardware: 'h100', model: 'llama-3.1-8b', requests: arrivals.map((a, i) => ({ id: i, scheduled_ms: a.at, prompt_tokens: a.prompt, max_tokens: maxTokens })) });
  return arrivals.map((_, i) => Array.from(records.find((r) => r.id === i)!.chunk_ms));
}

describe('engine server with late timers', () => {
  it('requests read after steps that ended before they arrived: the same step timeline as virtual time', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rand = mulberry32(seed);
      // 16 requests 0–30 ms apart, prompts of 64–1,024 tokens, 12 tokens out; each handed over 0–8 ms late.
      let t = 0;
      const arrivals = Array.from({ length: 16 }, () => ({ at: (t += rand() * 30), prompt: 64 * (1 + Math.floor(rand() * 16)) }));
      const real = lateServer(arrivals, 12, () => rand() * 8);
      const virt = virtualTimes(arrivals, 12);
      for (let i = 0; i < arrivals.length; i++) {
        expect(real[i], `seed ${seed}, request ${i}`).toHaveLength(12);
        for (let k = 0; k < 12; k++) expect(Math.abs(real[i]![k]! - virt[i]![k]!), `seed ${seed}, request ${i}, token ${k}`).toBeLessThan(1e-9);
      }
    }
  });
});
