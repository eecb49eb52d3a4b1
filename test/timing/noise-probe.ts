/**
 * The machine's scheduling noise while a timing test runs: a 1 ms timer re-armed for the whole
 * test, in the same process and event loop as the code measured. Its worst lateness is how long
 * this process could not run when it wanted to; a wall-clock figure that passes through k such
 * waits can be late by about k times that, on any machine, at any load. The timing tests state
 * their tolerance as a fixed part (what the code itself may add) plus a multiple of this.
 */
export interface Noise {
  /** worst lateness of the 1 ms timer, ms */
  max: number;
  samples: number;
}

export function startNoiseProbe(): { stop(): Noise } {
  let max = 0;
  let samples = 0;
  let timer: NodeJS.Timeout;
  const arm = () => {
    const due = performance.now() + 1;
    timer = setTimeout(() => {
      max = Math.max(max, performance.now() - due);
      samples++;
      arm();
    }, 1);
  };
  arm();
  return {
    stop() {
      clearTimeout(timer);
      return { max, samples };
    },
  };
}

/** Runs `fn` with a noise probe around it. */
export async function withNoise<T>(fn: () => Promise<T> | T): Promise<{ value: T; noise: Noise }> {
  const probe = startNoiseProbe();
  try {
    const value = await fn();
    return { value, noise: probe.stop() };
  } catch (e) {
    probe.stop();
    throw e;
  }
}
