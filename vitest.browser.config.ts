import { defineConfig } from 'vitest/config';

// Browser tests: the real app on 127.0.0.1 driven through Debian's chromium with playwright-core
// (`npm run test:browser`). Kept out of `npm test`, which must not need a browser. One file at a
// time: each starts its own server and browser, and the machines have two cores.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
