// npm run lint:openapi (CI runs it after npm run lint): builds the app without listening, on a
// throwaway SQLite store, writes the document GET /openapi.json serves to tmp/openapi.json
// (git-ignored; .redocly.lint-ignore.yaml refers to that path) and lints it with Redocly CLI
// under redocly.yaml. Exits with Redocly's code: non-zero on any error or warning.
// Needs dist/ (the npm script builds it first).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { migrateToLatest, openStore } from '../dist/store/database.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const documentFile = path.join(root, 'tmp', 'openapi.json');

/** The document a default server serves, pretty-printed so Redocly's line numbers help. */
async function servedDocument() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-openapi-'));
  const store = openStore({ dataDir });
  try {
    await migrateToLatest(store);
    const config = loadConfig({ dataDir }, { LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, store, logger: false });
    try {
      // The address a default server answers on: the document's `servers` reflect it.
      const response = await app.inject({ method: 'GET', url: '/openapi.json', headers: { host: '127.0.0.1:8080' } });
      if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
      return JSON.stringify(JSON.parse(response.body), null, 2);
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

mkdirSync(path.dirname(documentFile), { recursive: true });
writeFileSync(documentFile, await servedDocument());
const redocly = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
const result = spawnSync(
  process.execPath,
  [redocly, 'lint', '--config', 'redocly.yaml', '--max-problems', '1000', path.relative(root, documentFile)],
  {
    cwd: root,
    stdio: 'inherit',
    // No network from a lint: no telemetry, no update check.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
process.exit(result.status ?? 1);
