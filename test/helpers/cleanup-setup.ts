/** Loaded by vitest before each test file (vitest.config.ts `setupFiles`): temp dirs go when the file ends. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

afterAll(() => removeTempDirs());
