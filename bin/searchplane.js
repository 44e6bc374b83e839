#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the prepare script); this shim only loads it.
import('../dist/cli/index.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('searchplane is not built yet: run `npm ci` (or `npm run build`) first.');
    process.exit(1);
  }
  throw error;
});
