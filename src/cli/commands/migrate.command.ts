import { Command } from 'commander';
import { addStoreOptions, configFrom, printJson } from '../cli-support.js';

/** `searchplane migrate`: applies pending migrations and prints `{"applied": [...]}` (empty when up to date). */
export function migrateCommand(): Command {
  return addStoreOptions(new Command('migrate'))
    .description('apply pending database migrations (a no-op when up to date)')
    .action(async (flags) => {
      const config = configFrom(flags);
      const { migrateToLatest, openStore, storeOptions } = await import('../../store/database.js');
      const store = openStore(storeOptions(config));
      try {
        printJson({ applied: await migrateToLatest(store) });
      } finally {
        await store.close();
      }
    });
}
