import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Limits for a hang, not for speed: with a second copy of the suite running beside it on two
    // cores, process-heavy tests took up to a minute (tests that need more say so themselves).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The CLI tests spawn real processes; two cores, so keep files from oversubscribing.
    maxWorkers: 2,
  },
});
