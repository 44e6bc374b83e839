import { type Command, Option } from 'commander';
import { STATS_PERIODS } from '../../../services/usage-stats.service.js';
import { printJson, UsageError } from '../../cli-support.js';
import type { ApiClient, IndexRecord } from '../api-client.js';
import { resolveIndex } from '../index-resolver.js';
import { formatFields, printText } from '../output.js';
import { ask, canPrompt } from '../prompt.js';
import { addRemoteOptions, connect } from '../remote-context.js';
import { indexDetails, indexTable, statsDetails, withUrl } from './index-views.js';

interface JsonFlag {
  json?: boolean;
}

/** A remote subcommand of `indexes`, with the server options and `--json`. */
function remote(indexes: Command, usage: string, description: string): Command {
  return addRemoteOptions(indexes.command(usage).description(description)).option('--json', 'print JSON');
}

/**
 * Adds the network subcommands of `indexes` (create, get, rename, reset-password, stats,
 * delete); `list` is shared with the local store and calls {@link listIndexesRemote}.
 */
export function addRemoteIndexCommands(indexes: Command): void {
  remote(indexes, 'create <name>', 'create an index; prints its URL and tokens')
    .requiredOption('--region <region>', 'eu-west-1 or us-central1')
    .requiredOption('--type <plan>', 'plan: free or payg')
    .action(async (name: string, flags: JsonFlag & { region: string; type: string }, command: Command) => {
      const client = connect(command);
      const record = await client.post<IndexRecord>('/search', { name, region: flags.region, type: flags.type });
      if (flags.json) printJson(withUrl(client, record));
      else printText(`created index ${record.name}\n${indexDetails(client, record)}`);
    });

  remote(indexes, 'get <index>', 'show an index: URL, tokens, quotas (<index> is an id or name)').action(
    async (ref: string, flags: JsonFlag, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      if (flags.json) printJson(withUrl(client, record));
      else printText(indexDetails(client, record));
    },
  );

  remote(indexes, 'rename <index> <new-name>', 'rename an index').action(
    async (ref: string, name: string, flags: JsonFlag, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      await client.post(`/search/${record.id}/rename`, { name });
      if (flags.json) printJson({ id: record.id, name });
      else printText(`renamed index ${record.name} to ${name}`);
    },
  );

  remote(indexes, 'reset-password <index>', 'replace both data-plane tokens (the old ones stop working)').action(
    async (ref: string, flags: JsonFlag, command: Command) => {
      const client = connect(command);
      const { id } = await resolveIndex(client, ref);
      await client.post(`/search/${id}/reset-password`);
      const record = await client.get<IndexRecord>(`/search/${id}`);
      if (flags.json) printJson({ id, token: record.token, read_only_token: record.read_only_token });
      else {
        printText(`new tokens for index ${record.name} (the old ones no longer work):`);
        printText(
          formatFields([
            ['token', record.token],
            ['read-only token', record.read_only_token],
          ]),
        );
      }
    },
  );

  remote(indexes, 'stats <index>', 'usage of an index: documents, queries, updates, bandwidth')
    .addOption(
      new Option('--period <period>', 'time span of the throughput lines').choices(STATS_PERIODS).default('1h'),
    )
    .action(async (ref: string, flags: JsonFlag & { period: string }, command: Command) => {
      const client = connect(command);
      const { id } = await resolveIndex(client, ref);
      const stats = await client.get<Record<string, unknown>>(
        `/search/${id}/stats?period=${encodeURIComponent(flags.period)}`,
      );
      if (flags.json) printJson(stats);
      else printText(statsDetails(stats, flags.period));
    });

  remote(indexes, 'delete <index>', 'delete an index and all its documents')
    .option('--yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .action(async (ref: string, flags: JsonFlag & { yes?: boolean }, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      if (!flags.yes) await confirmDeletion(record);
      await client.delete(`/search/${record.id}`);
      if (flags.json) printJson({ id: record.id, deleted: true });
      else printText(`deleted index ${record.name} (${record.id})`);
    });
}

/** `indexes list` against a server: a table, or the records (without tokens) with `--json`. */
export async function listIndexesRemote(command: Command, flags: JsonFlag): Promise<void> {
  const client: ApiClient = connect(command);
  const records = await client.get<IndexRecord[]>('/search');
  if (flags.json) {
    printJson(
      records.map((record) => {
        const { token: _token, read_only_token: _readOnly, ...rest } = withUrl(client, record);
        return rest;
      }),
    );
  } else printText(indexTable(client, records));
}

async function confirmDeletion(record: IndexRecord): Promise<void> {
  if (!canPrompt()) {
    throw new UsageError(`refusing to delete index ${record.name} without --yes (no terminal to ask on)`);
  }
  const answer = await ask(
    `Delete index ${record.name} (${record.id}) and all its documents? Type its name to confirm: `,
  );
  if (answer !== record.name) throw new Error('not deleted: the name did not match');
}
