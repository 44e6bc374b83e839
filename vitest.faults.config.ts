import { defineConfig } from 'vitest/config';

// Fault tests (`npm run test:faults`, run by .ci/run): the real server under a network partition
// from PostgreSQL, a PostgreSQL failover to a promoted standby, and an online backup under writes.
// Kept out of `npm test`: they take minutes and the failover needs root and PostgreSQL's binaries.
// One file at a time: each starts servers (and database clusters) of its own on two cores.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
