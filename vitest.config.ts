import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Browser tests need chromium: `npm run test:browser` (vitest.browser.config.ts) runs them;
    // fault tests need minutes and PostgreSQL clusters: `npm run test:faults` (vitest.faults.config.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/faults/**'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
