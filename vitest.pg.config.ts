import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

// The same suite, against PostgreSQL: test/helpers and the black-box tests give every test file
// a fresh schema in this database. `.ci/run` provides one; locally, point it at any database the
// user may create schemas in, e.g.
//   TEST_DATABASE_URL=postgres://searchplane:searchplane@127.0.0.1:5432/searchplane_test npm run test:pg
if (!process.env.TEST_DATABASE_URL) {
  throw new Error('npm run test:pg needs TEST_DATABASE_URL=postgres://user:password@host:port/database');
}

export default mergeConfig(base, defineConfig({ test: {} }));
