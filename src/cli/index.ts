import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, reportFailure } from './cli-support.js';
import { accountsCommand } from './commands/accounts.command.js';
import { backupCommand, restoreCommand } from './commands/backup.command.js';
import { evalCommand } from './commands/eval.command.js';
import { indexesCommand } from './commands/indexes.command.js';
import { migrateCommand } from './commands/migrate.command.js';
import { serveCommand } from './commands/serve.command.js';
import { docsCommands } from './remote/commands/docs.command.js';
import { keysCommands } from './remote/commands/keys.command.js';
import { loginCommands } from './remote/commands/login.command.js';
import { messagingCommands } from './remote/commands/messaging.command.js';
import { searchCommand } from './remote/commands/search.command.js';
import { addRemoteOptions } from './remote/remote-context.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The `searchplane` command tree. */
export function buildCli(): Command {
  const program = new Command('searchplane')
    .description('Self-hosted search indexes: management API, data plane and account tools')
    .version(version);
  program.addCommand(serveCommand());
  program.addCommand(migrateCommand());
  program.addCommand(backupCommand());
  program.addCommand(restoreCommand());
  program.addCommand(accountsCommand());
  program.addCommand(indexesCommand());
  program.addCommand(evalCommand());
  // Network commands. Program options only before the command name, so that `--email` after
  // it stays the command's own (`accounts create --email`).
  addRemoteOptions(program.enablePositionalOptions());
  for (const command of [docsCommands(), searchCommand(), messagingCommands(), keysCommands(), ...loginCommands()]) {
    program.addCommand(command);
  }
  throwOnUsageErrors(program);
  return program;
}

/** Makes commander throw instead of exiting, on every level, so usage errors exit with 2. */
function throwOnUsageErrors(command: Command): void {
  command.exitOverride().showHelpAfterError('(add --help for usage)');
  for (const sub of command.commands) throwOnUsageErrors(sub);
}

/** Runs the CLI; resolves to the process exit code (serve keeps running until a signal). */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    return reportFailure(error);
  }
}

const code = await runCli(process.argv);
// A failed start may leave handles open (pool, engine files); do not hang on them. Success
// exits on its own, so stdout is flushed and `serve` keeps running.
if (code !== 0) process.exit(code);
