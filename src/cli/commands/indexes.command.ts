import { Command } from 'commander';
import { indexUrls } from '../../services/index-urls.js';
import { migrateToLatest, openStore } from '../../store/database.js';
import { listSearchIndexes, listSearchIndexesOfAll } from '../../store/repositories/search-index.repository.js';
import { addStoreOptions, configFrom, printJson } from '../cli-support.js';

/**
 * `searchplane indexes list [--email E]`: every index with the URL its data plane answers at
 * (the `url` to give the SDK). Tokens are not printed; `GET /v2/search/{id}` shows them.
 */
export function indexesCommand(): Command {
  const indexes = new Command('indexes').description('inspect search indexes (works while a server is running)');
  addStoreOptions(indexes.command('list'))
    .description('list indexes with their data-plane URLs; prints [{"customer_id","id","name","endpoint","url",…}]')
    .option('--email <email>', 'only the indexes of this account')
    .option('--host <host>', 'host the server listens on (env HOST; default 127.0.0.1), for the URL')
    .option('--port <port>', 'port the server listens on (env PORT; default 8080), for the URL')
    .action(async (flags) => {
      const config = configFrom(flags);
      const base = config.publicUrl ?? `http://${config.host}:${config.port}`;
      const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      try {
        await migrateToLatest(store);
        const rows = flags.email
          ? await listSearchIndexes(store.db, flags.email)
          : await listSearchIndexesOfAll(store.db);
        printJson(
          rows.map((row) => ({
            customer_id: row.customer_id,
            id: row.id,
            name: row.name,
            type: row.type,
            region: row.region,
            endpoint: row.endpoint,
            ...indexUrls(row.endpoint, base, config.dataDomain),
          })),
        );
      } finally {
        await store.close();
      }
    });
  return indexes;
}
