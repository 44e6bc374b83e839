import { Command, InvalidArgumentError } from 'commander';
import type { ApiKeyRecord, CreatedApiKey } from '../../../services/api-key.service.js';
import { printJson } from '../../cli-support.js';
import type { ApiClient } from '../api-client.js';
import { byIdOrName, resolveIndex } from '../index-resolver.js';
import { columnList } from '../option-parsers.js';
import { formatFields, formatTable, formatTime, printText } from '../output.js';
import { addRemoteOptions, connect } from '../remote-context.js';

interface CreateFlags {
  actions: string[];
  indexes?: string[];
  expiresAt?: number;
  json?: boolean;
}

function keysCommand(keys: Command, usage: string, description: string): Command {
  return addRemoteOptions(keys.command(usage).description(description)).option('--json', 'print JSON');
}

/** `--expires-at`: Unix seconds, or a date and time such as 2027-01-31T00:00:00Z. */
export function expiryTime(value: string): number {
  const seconds = /^\d+$/.test(value) ? Number(value) : Date.parse(value) / 1000;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InvalidArgumentError('expected Unix seconds or an ISO 8601 date, e.g. 2027-01-31T00:00:00Z');
  }
  return Math.floor(seconds);
}

/** `searchplane keys create|list|delete`: the account's management API keys. */
export function keysCommands(): Command {
  const keys = new Command('keys').description("the account's management API keys (over the network)");

  keysCommand(keys, 'create <name>', 'create an API key and print its secret (shown this once)')
    .requiredOption(
      '--actions <list>',
      'comma-separated actions, e.g. indexes.read,stats.read or indexes.* or *',
      columnList,
    )
    .option('--indexes <list>', 'limit the key to these indexes (comma-separated ids or names)', columnList)
    .option('--expires-at <time>', 'refuse the key from then on (Unix seconds or ISO 8601)', expiryTime)
    .action(async (name: string, flags: CreateFlags, command: Command) => {
      const client = connect(command);
      const indexes =
        flags.indexes === undefined
          ? undefined
          : await Promise.all(flags.indexes.map(async (ref) => (await resolveIndex(client, ref)).id));
      const created = await client.post<CreatedApiKey>('/keys', {
        name,
        actions: flags.actions,
        ...(indexes === undefined ? {} : { indexes }),
        ...(flags.expiresAt === undefined ? {} : { expires_at: flags.expiresAt }),
      });
      if (flags.json) return printJson(created);
      printText(formatFields([...keyFields(created), ['key', created.key]]));
      printText('The key is shown only this once: use it as the API key with the account email.');
    });

  keysCommand(keys, 'list', 'list API keys (never their secrets)').action(
    async (flags: { json?: boolean }, command: Command) => {
      const records = await connect(command).get<ApiKeyRecord[]>('/keys');
      if (flags.json) return printJson(records);
      const rows = records.map((key) => [
        key.name,
        key.id,
        key.actions.join(','),
        key.indexes === null ? 'all' : String(key.indexes.length),
        key.expires_at === null ? 'never' : formatTime(key.expires_at),
      ]);
      printText(formatTable(['NAME', 'ID', 'ACTIONS', 'INDEXES', 'EXPIRES'], rows));
    },
  );

  keysCommand(keys, 'delete <key>', 'delete an API key (by id or name); it stops working at once').action(
    async (ref: string, flags: { json?: boolean }, command: Command) => {
      const client = connect(command);
      const key = await resolveKey(client, ref);
      await client.delete(`/keys/${encodeURIComponent(key.id)}`);
      if (flags.json) printJson({ id: key.id, name: key.name, deleted: true });
      else printText(`deleted API key ${key.name} (${key.id})`);
    },
  );

  return keys;
}

function keyFields(key: ApiKeyRecord): [string, string][] {
  return [
    ['id', key.id],
    ['name', key.name],
    ['actions', key.actions.join(', ')],
    ['indexes', key.indexes === null ? 'all' : key.indexes.join(', ')],
    ['expires', key.expires_at === null ? 'never' : formatTime(key.expires_at)],
    ['created', formatTime(key.created_at)],
  ];
}

/** The account's key whose id or name is `ref` (an id match wins). */
async function resolveKey(client: ApiClient, ref: string): Promise<ApiKeyRecord> {
  return byIdOrName(await client.get<ApiKeyRecord[]>('/keys'), ref, 'an API key', client.target.email);
}
