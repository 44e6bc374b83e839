// A real `searchplane serve` process for the benchmark (quotas off through a plans file, the
// builtin embedder whatever the caller's environment says) and an index on it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING } from '../../dist/malloc-tuning.js';
import { QUOTA_FIELDS } from '../../dist/services/plans.js';
import { requestJson, spawnServer } from './bench-processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const email = 'bench@example.com';
const apiKey = 'bench-api-key-0123456789abcdef';
const authorization = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
/** Settings of the caller's environment that must not leak into the measured server. */
const CLEARED = [
  'DATABASE_URL',
  'HOST',
  'PORT',
  'SEARCHPLANE_DATA_DIR',
  'SEARCHPLANE_PLANS_FILE',
  'SEARCHPLANE_EMBEDDINGS_PROVIDER',
  'SEARCHPLANE_EMBEDDINGS_URL',
  'SEARCHPLANE_EMBEDDINGS_MODEL',
  'SEARCHPLANE_EMBEDDINGS_API_KEY',
  'SEARCHPLANE_EMBEDDINGS_DIMENSIONS',
  'SEARCHPLANE_RERANK_URL',
  'SEARCHPLANE_ENRICHMENT_URL',
];

/**
 * Starts `searchplane serve` as `npm start` starts it (with its glibc malloc settings), on port 0 with its data under `workDir/<name>`; `databaseUrl` for
 * PostgreSQL mode. Resolves to `{ url, pid, dataDir, startedAt, stop() }` once it listens.
 */
export async function startSearchplane({ workDir, name, databaseUrl, logLevel = 'warn' }) {
  const dataDir = path.join(workDir, name);
  const plansFile = path.join(workDir, 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ payg: Object.fromEntries(QUOTA_FIELDS.map((field) => [field, -1])) }));
  const env = Object.fromEntries(CLEARED.map((key) => [key, undefined]));
  const startedAt = performance.now();
  const server = await spawnServer({
    args: [
      path.join(root, 'bin/searchplane.js'),
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--plans-file',
      plansFile,
      ...(databaseUrl ? ['--database-url', databaseUrl] : []),
    ],
    env: {
      ...env,
      ...MALLOC_TUNING,
      LOG_LEVEL: logLevel,
      SEARCHPLANE_ADMIN_EMAIL: email,
      SEARCHPLANE_ADMIN_API_KEY: apiKey,
    },
    logFile: path.join(workDir, `${name}.log`),
    timeoutMs: 120_000,
  });
  return { ...server, dataDir, startedAt };
}

/** Creates a payg index through the management API; resolves to `{ dataUrl, token }`. */
export async function createIndex(server, name) {
  const record = await requestJson(`${server.url}/v2/search`, {
    method: 'POST',
    headers: { authorization },
    body: { name, region: 'us-central1', type: 'payg' },
  });
  return {
    id: record.id,
    dataUrl: `${server.url}/indexes/${record.endpoint}`,
    endpoint: record.endpoint,
    token: record.token,
  };
}

/** The data-plane URL of an index (by endpoint) on another node of the same database. */
export const dataUrlOn = (server, index) => `${server.url}/indexes/${index.endpoint}`;

/** Upsert bodies for documents `{id, title, text}`. */
export const toUpsert = (doc) => ({ id: doc.id, content: { title: doc.title, text: doc.text } });

/** Request bodies the benchmark sends: full text, the SDK's default request, the vector path. */
export const SEARCH_MODES = {
  fullText: (query) => ({ query, topK: 10, includeData: true, semanticWeight: 0, inputEnrichment: false }),
  // Exactly what `index.search({ query, limit: 10 })` of @upstash/search sends: weight 0.75 and input
  // enrichment on are the server's defaults.
  default: (query) => ({ query, topK: 10, includeData: true, includeMetadata: true }),
  vector: (query) => ({ query, topK: 10, includeData: true, semanticWeight: 1, inputEnrichment: false }),
  // Full text within documents whose title starts with the query's first letter, a filter of the
  // query's own (the `!=` never holds), so that no two share a cached match set: each search scans.
  filtered: (query, i) => ({
    query,
    topK: 10,
    includeData: true,
    semanticWeight: 0,
    inputEnrichment: false,
    filter: `title GLOB '${query[0].toUpperCase()}*' AND title != 'query ${i}'`,
  }),
};
