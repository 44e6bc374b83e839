import { Command } from 'commander';
import { ApiClient } from '../api-client.js';
import {
  type Credentials,
  credentialsPath,
  removeCredentialsFile,
  requireTarget,
  writeCredentialsFile,
} from '../credentials.js';
import { printText } from '../output.js';
import { ask, askHidden, canPrompt } from '../prompt.js';
import { addRemoteOptions, remoteFlags } from '../remote-context.js';

/**
 * Fills in what the flags and environment did not give by asking on the terminal (the key
 * without echo); without a terminal, every part must be given.
 */
async function askForMissing(given: Credentials): Promise<Credentials> {
  const credentials = { ...given };
  if (credentials.url && credentials.email && credentials.apiKey) return credentials;
  if (!canPrompt()) return credentials; // requireTarget names what is missing
  credentials.url ||= (await ask('Server URL (e.g. http://127.0.0.1:8080): ')) || undefined;
  credentials.email ||= (await ask('Account email: ')) || undefined;
  credentials.apiKey ||= (await askHidden('API key: ')) || undefined;
  return credentials;
}

/** `searchplane login` and `searchplane logout`. */
export function loginCommands(): Command[] {
  const login = addRemoteOptions(new Command('login'))
    .description('check and save server credentials (0600 file in the user config dir) for the network commands')
    .action(async (_flags: unknown, command: Command) => {
      const env = process.env;
      const flags = remoteFlags(command);
      const given = await askForMissing({
        url: flags.url ?? env.SEARCHPLANE_URL,
        email: flags.email ?? env.SEARCHPLANE_EMAIL,
        apiKey: flags.apiKey ?? env.SEARCHPLANE_API_KEY,
      });
      const target = requireTarget(given);
      // Only credentials that work are saved: a typo shows now, not at the next command.
      const indexes = await new ApiClient(target).get<unknown[]>('/search');
      const file = credentialsPath(env);
      writeCredentialsFile(file, target);
      printText(`logged in to ${target.url} as ${target.email} (${indexes.length} indexes); saved in ${file}`);
    });

  const logout = new Command('logout').description('remove the saved credentials').action(() => {
    const file = credentialsPath(process.env);
    printText(removeCredentialsFile(file) ? `logged out: removed ${file}` : `not logged in (no ${file})`);
  });

  return [login, logout];
}
