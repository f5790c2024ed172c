import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The CLI tests spawn real processes; two cores, so keep files from oversubscribing.
    maxWorkers: 2,
  },
});
