import { Command } from 'commander';
import { indexUrls } from '../../services/index-urls.js';
import { addStoreOptions, configFrom, noStoreError, printJson, UsageError } from '../cli-support.js';
import { addRemoteIndexCommands, listIndexesRemote } from '../remote/commands/indexes.command.js';
import { addRemoteOptions, remoteFlags, resolveCredentials } from '../remote/remote-context.js';

interface ListFlags {
  email?: string;
  dataDir?: string;
  databaseUrl?: string;
  host?: string;
  port?: string;
  json?: boolean;
}

/**
 * `searchplane indexes ...`. `list` reads the store directly when given a local option
 * (`--data-dir`, `--database-url`, `--host`, `--port`) or when no server URL is configured
 * (flag, SEARCHPLANE_URL or `searchplane login`); otherwise it asks that server. The other
 * subcommands always go over the network.
 */
export function indexesCommand(): Command {
  const indexes = new Command('indexes').description('search indexes: create, inspect, rename, delete');
  addStoreOptions(addRemoteOptions(indexes.command('list')))
    .description(
      'list indexes with their data-plane URLs: a table from the server, or (local store) [{"customer_id","id","name","endpoint","url",…}]',
    )
    .option('--host <host>', 'local: host the server listens on (env HOST; default 127.0.0.1), for the URL')
    .option('--port <port>', 'local: port the server listens on (env PORT; default 8080), for the URL')
    .option('--json', 'print JSON (the local store always does)')
    .action(async (flags: ListFlags, command: Command) => {
      const local = Boolean(flags.dataDir || flags.databaseUrl || flags.host || flags.port);
      if (!local && resolveCredentials(command).url) return listIndexesRemote(command, flags);
      await listIndexesLocal({ ...flags, email: remoteFlags(command).email }, local);
    });
  addRemoteIndexCommands(indexes);
  return indexes;
}

/**
 * Every index of the store (or of one account, `--email`) with the URL its data plane answers
 * at (the `url` to give the SDK). Tokens are not printed; `indexes get` shows them.
 */
async function listIndexesLocal(flags: ListFlags, asked: boolean): Promise<void> {
  const config = configFrom(flags);
  const [
    { migrateToLatest, missingStoreFile, openStore, storeOptions },
    { listSearchIndexes, listSearchIndexesOfAll },
  ] = await Promise.all([
    import('../../store/database.js'),
    import('../../store/repositories/search-index.repository.js'),
  ]);
  const missing = missingStoreFile(config);
  if (missing && asked) throw noStoreError(missing);
  if (missing) {
    throw new UsageError(
      `no server URL (--url, SEARCHPLANE_URL or \`searchplane login\`) and no store at ${missing} (--data-dir)`,
    );
  }
  const base = config.publicUrl ?? `http://${config.host}:${config.port}`;
  const store = openStore(storeOptions(config));
  try {
    await migrateToLatest(store);
    const rows = flags.email ? await listSearchIndexes(store.db, flags.email) : await listSearchIndexesOfAll(store.db);
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
}
