import { defineConfig } from 'vitest/config';

/**
 * Two projects (docs/testing.md):
 *  - default: deterministic tests, run in parallel; no assertion depends on how fast the machine is.
 *  - timing:  the few tests that must measure wall time, one file at a time, in test/timing/.
 *  - scale:   opt-in tests of runs too large for the default suite (test/scale/, `npm run test:scale`).
 */
// Time limits only catch a hung test: generous, since a loaded machine can make a tokenizer load
// or a CLI run take many times its usual time.
const shared = {
  // The capacity self-test before a run is wall-clock: off in tests (test/timing/capacity-gate.timing.test.ts turns it on).
  env: { INFERMETER_CAPACITY_CHECK: 'off' },
  testTimeout: 120_000,
  hookTimeout: 120_000,
  setupFiles: ['test/helpers/cleanup-setup.ts'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/timing/**', 'test/scale/**'],
        },
      },
      {
        test: {
          ...shared,
          name: 'timing',
          include: ['test/timing/**/*.timing.test.ts'],
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
      {
        test: {
          ...shared,
          name: 'scale',
          include: ['test/scale/**/*.scale.test.ts'],
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
    ],
  },
});
