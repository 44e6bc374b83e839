import { Command } from 'commander';
import type { AccountService } from '../../services/account.service.js';
import { systemClock } from '../../services/clock.js';
import { addStoreOptions, configFrom, noStoreError, printJson } from '../cli-support.js';

interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
}

/**
 * Runs `work` against the store directly (no server needed). SQLite's WAL and busy timeout let
 * this run while a server uses the same data dir; the server sees the change on its next query.
 */
async function withAccounts<T>(
  flags: StoreFlags,
  work: (accounts: AccountService) => Promise<T>,
  { readOnly = false } = {},
): Promise<T> {
  const config = configFrom(flags);
  // Loaded here, not at the top: the network commands need none of the store's modules.
  const [{ AccountService }, { migrateToLatest, missingStoreFile, openStore, storeOptions }, { ReadCache }] =
    await Promise.all([
      import('../../services/account.service.js'),
      import('../../store/database.js'),
      import('../../store/read-cache.js'),
    ]);
  const missing = readOnly ? missingStoreFile(config) : undefined;
  if (missing) throw noStoreError(missing);
  const store = openStore(storeOptions(config));
  try {
    // So that the CLI also works on a data dir no server has started on yet.
    await migrateToLatest(store);
    const cache = new ReadCache(() => store.changeToken());
    return await work(
      new AccountService(store, { clock: systemClock, messagingDefaultPlan: config.messagingDefaultPlan, cache }),
    );
  } finally {
    await store.close();
  }
}

/** `searchplane accounts create|list|rotate-key|delete`; each prints one JSON document. */
export function accountsCommand(): Command {
  const accounts = new Command('accounts').description('manage accounts (works while a server is running)');

  addStoreOptions(accounts.command('create'))
    .description('create an account; prints {"email","api_key"} (the key is shown only here)')
    .requiredOption('--email <email>', 'the account email (the Basic auth user name)')
    .action(async (flags) => printJson(await withAccounts(flags, (service) => service.create(flags.email))));

  addStoreOptions(accounts.command('list'))
    .description('list accounts; prints [{"email","created_at"}]')
    .action(async (flags) => printJson(await withAccounts(flags, (service) => service.list(), { readOnly: true })));

  addStoreOptions(accounts.command('rotate-key'))
    .description('replace the API key (the old one stops working at once); prints {"email","api_key"}')
    .requiredOption('--email <email>', 'the account email')
    .action(async (flags) => printJson(await withAccounts(flags, (service) => service.rotateKey(flags.email))));

  addStoreOptions(accounts.command('delete'))
    .description('delete the account with its indexes and messaging instances; prints {"email","deleted":true}')
    .requiredOption('--email <email>', 'the account email')
    .action(async (flags) => {
      await withAccounts(flags, (service) => service.delete(flags.email));
      printJson({ email: flags.email, deleted: true });
    });

  return accounts;
}
