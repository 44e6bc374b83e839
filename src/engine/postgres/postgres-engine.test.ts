import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import type { DB } from '../../store/schema.js';
import { createBuiltinEmbedder } from '../providers/builtin-embedder.js';
import { tempDir } from '../test-fixtures.js';
import { createPostgresEngine } from './postgres-engine.js';

it('an engine closed while its first LISTEN connection is still being made stops it once made', async () => {
  const temp = tempDir();
  let listening!: (stop: () => Promise<void>) => void;
  let reconnected!: () => void;
  let stopped = 0;
  let queries = 0;
  // Any query (the sweep's first step reads the record) counts, and then fails.
  const db = new Proxy({} as Kysely<DB>, {
    get() {
      queries++;
      throw new Error('the database was used');
    },
  });
  const warnings: string[] = [];
  const engine = createPostgresEngine({
    dataDir: temp.dir,
    embedder: createBuiltinEmbedder(),
    vectorWorkers: 1,
    db,
    logger: { info() {}, warn: (_obj, msg) => warnings.push(msg ?? ''), error() {} },
    listen: (_channel, _onMessage, onReconnect) => {
      reconnected = onReconnect;
      return new Promise((resolve) => {
        listening = resolve;
      });
    },
  });
  try {
    await engine.close();
    // PostgreSQL becomes reachable after the close: the listener must not stay connected...
    listening(async () => {
      stopped++;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(1);
    // ...nor compare local copies with the record (the sweep of a closed engine).
    reconnected();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queries).toBe(0);
    expect(warnings).toEqual([]);
  } finally {
    await engine.close();
    temp.remove();
  }
});
