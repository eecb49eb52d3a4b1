import { defineConfig } from 'vitest/config';

/**
 * Two projects (docs/testing.md):
 *  - default: deterministic tests, run in parallel; no assertion depends on how fast the machine is.
 *  - timing:  the few tests that must measure wall time, one file at a time, in test/timing/.
 */
const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
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
          exclude: ['**/node_modules/**', 'test/timing/**'],
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
    ],
  },
});
