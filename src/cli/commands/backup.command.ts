import { Command } from 'commander';
import type { BackupManifest } from '../../store/embedded-backup.js';
import { addStoreOptions, configFrom, printJson, UsageError } from '../cli-support.js';

type EmbeddedBackup = typeof import('../../store/embedded-backup.js');

/**
 * A command over the embedded store's data dir and one file. Refused on PostgreSQL, where the data
 * lives in the database and a node's data dir is a cache.
 */
function fileCommand(
  name: 'backup' | 'restore',
  description: string,
  fileHelp: string,
  run: (backups: EmbeddedBackup, dataDir: string, file: string) => Promise<object>,
): Command {
  return addStoreOptions(new Command(name))
    .description(description)
    .argument('<file>', fileHelp)
    .action(async (file: string, flags) => {
      const config = configFrom(flags);
      if (config.databaseUrl) {
        throw new UsageError(
          `${name} covers the embedded store; on PostgreSQL back up the database itself (pg_dump, pg_basebackup)`,
        );
      }
      printJson(await run(await import('../../store/embedded-backup.js'), config.dataDir, file));
    });
}

const summary = (manifest: BackupManifest) => ({ created_at: manifest.created_at, indexes: manifest.indexes.length });

/** `searchplane backup <file>`: a consistent snapshot of the data dir, also while a server runs on it. */
export function backupCommand(): Command {
  return fileCommand(
    'backup',
    'snapshot the embedded store (SQLite data dir) into one file, also while a server runs on it',
    'the backup file to write (replaced if it exists)',
    async (backups, dataDir, file) => ({ file, ...summary(await backups.backupDataDir(dataDir, file)) }),
  );
}

/** `searchplane restore <file>`: a backup into an empty (or new) data dir. */
export function restoreCommand(): Command {
  return fileCommand(
    'restore',
    'restore a backup into an empty or new data dir (then start the server on it)',
    'a file written by `searchplane backup`',
    async (backups, dataDir, file) => ({ data_dir: dataDir, ...summary(await backups.restoreDataDir(file, dataDir)) }),
  );
}
