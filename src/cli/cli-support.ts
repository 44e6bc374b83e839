import type { Command } from 'commander';
import { type Config, ConfigError, type ConfigFlags, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { printable } from './remote/output.js';

/** Exit code for a bad invocation: unknown flags, invalid configuration. */
export const EXIT_USAGE = 2;
/** Exit code for a command that ran and failed. */
export const EXIT_FAILURE = 1;

/** A bad invocation found after parsing (missing credentials, a bad value): one line, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * For the commands that only read the store: a SQLite file that does not exist (see
 * `missingStoreFile`) is not created, since an empty store would only hide a wrong directory.
 */
export function noStoreError(file: string): UsageError {
  return new UsageError(`no store at ${file}: give the --data-dir the server runs with`);
}

/** A failure the command has already explained on stderr; only sets the exit code (1). */
export class ReportedFailure extends Error {
  override readonly name = 'ReportedFailure';
}

/** Adds the options that choose the store, shared by every command that opens it. */
export function addStoreOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'directory of the embedded SQLite database (env SEARCHPLANE_DATA_DIR; default ./data)')
    .option('--database-url <url>', 'use this PostgreSQL database instead (env DATABASE_URL)');
}

/** Config from the command's flags and the environment; throws ConfigError listing every problem. */
export function configFrom(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): Config {
  const { host, port, dataDir, databaseUrl, plansFile, logLevel } = flags;
  return loadConfig({ host, port, dataDir, databaseUrl, plansFile, logLevel }, env);
}

/** Prints one JSON document on one line to stdout, for scripts and `jq`. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Reports a failed command on stderr and returns its exit code: every config problem at once
 * (exit 2); a usage error in one line (exit 2); nothing more for a failure the command already
 * reported (exit 1); `{"error","code"}` JSON for domain errors such as account_exists (exit 1);
 * the message for anything else (exit 1).
 */
export function reportFailure(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`searchplane: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ReportedFailure) return EXIT_FAILURE;
  if (error instanceof AppError) {
    const body = { error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    return EXIT_FAILURE;
  }
  // Messages may quote what a server or a file holds (ids, names): no raw escape sequences.
  process.stderr.write(`searchplane: ${printable(error instanceof Error ? error.message : String(error))}\n`);
  return EXIT_FAILURE;
}
