import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import {
  type Credentials,
  credentialsPath,
  mergeCredentials,
  readCredentialsFile,
  requireTarget,
} from './credentials.js';

/**
 * Adds `--url`, `--email` and `--key`. The program has them too (before the command name, as in
 * `searchplane --url U indexes list`); a command's own value wins over the program's.
 */
export function addRemoteOptions(command: Command): Command {
  return command
    .option('--url <url>', 'server base URL, e.g. http://127.0.0.1:8080 (env SEARCHPLANE_URL)')
    .option('--email <email>', 'account email (env SEARCHPLANE_EMAIL)')
    .option('--key <key>', 'account API key (env SEARCHPLANE_API_KEY)');
}

/** `--url/--email/--key` as given on this command or any command above it (nearest wins). */
export function remoteFlags(command: Command): Credentials {
  const flags: Credentials = {};
  for (let current: Command | null = command; current; current = current.parent) {
    const options = current.opts<{ url?: string; email?: string; key?: string }>();
    flags.url ??= options.url;
    flags.email ??= options.email;
    flags.apiKey ??= options.key;
  }
  return flags;
}

/**
 * Credentials from flags, then the environment, then the login file. The environment is read
 * here, once per command, like the server's config is read once in src/config.ts.
 */
export function resolveCredentials(command: Command, env: NodeJS.ProcessEnv = process.env): Credentials {
  return mergeCredentials(remoteFlags(command), env, () => readCredentialsFile(credentialsPath(env)));
}

/** A client for the server the command's credentials name; a usage error when any part is missing. */
export function connect(command: Command, env: NodeJS.ProcessEnv = process.env): ApiClient {
  return new ApiClient(requireTarget(resolveCredentials(command, env)));
}
