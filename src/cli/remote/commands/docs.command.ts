import { Command, Option } from 'commander';
import { printJson, ReportedFailure } from '../../cli-support.js';
import type { ApiClient, DataPlaneTarget } from '../api-client.js';
import { exportDocuments, type RangeDocument, type RangePage } from '../export/document-exporter.js';
import { checkExportTarget, openExportOutput } from '../export/export-output.js';
import { IMPORT_FORMATS } from '../import/import-sources.js';
import { perRequestLimit, resolveIndex } from '../index-resolver.js';
import { columnList, positiveInteger } from '../option-parsers.js';
import { formatCount, plural, printable, printText } from '../output.js';
import { createProgress } from '../progress.js';
import { addRemoteOptions, connect } from '../remote-context.js';
import { importDocuments } from './docs-import.js';

interface NamespaceFlags {
  namespace: string;
  json?: boolean;
}

/** Reads per request when the index has no `max_reads_per_request`; also caps export pages. */
const READS_PER_REQUEST = 1000;

function docsCommand(docs: Command, usage: string, description: string): Command {
  return addRemoteOptions(docs.command(usage).description(description)).option(
    '--namespace <namespace>',
    'namespace (the SDK’s index name); default: the default namespace',
    '',
  );
}

/** `searchplane docs import|export|get|delete`: documents of an index, over its data plane. */
export function docsCommands(): Command {
  const docs = new Command('docs').description(
    'import, export, fetch and delete documents of an index (over the network)',
  );

  docsCommand(docs, 'import <index> <file>', 'import documents from JSONL, a JSON array or CSV (`-` = stdin)')
    .addOption(
      new Option('--format <format>', 'file format (default: from the name, else the first character)').choices(
        IMPORT_FORMATS,
      ),
    )
    .option('--id-column <column>', 'CSV: the column holding document ids (default "id")')
    .option(
      '--content-columns <columns>',
      'CSV: comma-separated columns that become content (default: all but the id); the others become metadata',
      columnList,
    )
    .option('--batch-size <n>', 'documents per request, at most the index’s max_writes_per_request', positiveInteger)
    .option('--no-progress', 'no progress display on stderr')
    .option('--json', 'print the summary as JSON')
    .action(importDocuments);

  docsCommand(docs, 'export <index> <file>', 'export the documents of a namespace as JSONL (`-` = stdout)')
    .option('--no-progress', 'no progress display on stderr')
    .action(async (ref: string, file: string, flags: NamespaceFlags & { progress: boolean }, command: Command) => {
      checkExportTarget(file);
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      const target = client.dataPlaneOf(record);
      const limit = Math.min(READS_PER_REQUEST, perRequestLimit(record.max_reads_per_request, READS_PER_REQUEST));
      const total = await namespaceSize(client, target, flags.namespace);
      const progress = createProgress({ verb: 'exported', stream: process.stderr, enabled: flags.progress });
      const output = await openExportOutput(file);
      let exported: number;
      try {
        exported = await exportDocuments({
          range: (cursor) =>
            client.dataPlane<RangePage>(target, 'range', flags.namespace, {
              cursor,
              limit,
              includeData: true,
              includeMetadata: true,
            }),
          write: (text) => output.write(text),
          onProgress: (done) => progress.update(done, total ? done / total : undefined),
        });
        await output.commit();
      } catch (error) {
        progress.finish();
        await output.abort();
        throw error;
      }
      progress.finish();
      if (file !== '-') printText(`exported ${plural(exported, 'document')} from ${record.name} to ${file}`);
    });

  docsCommand(docs, 'get <index> <ids...>', 'print documents by id, one JSON line each').action(
    async (ref: string, ids: string[], flags: NamespaceFlags, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      const target = client.dataPlaneOf(record);
      const missing: string[] = [];
      for (const chunk of chunks(ids, perRequestLimit(record.max_reads_per_request, READS_PER_REQUEST))) {
        const body = { ids: chunk, includeData: true, includeMetadata: true };
        const found = await client.dataPlane<(RangeDocument | null)[]>(target, 'fetch', flags.namespace, body);
        found.forEach((document, position) => {
          if (document) printJson(document);
          else missing.push(chunk[position]);
        });
      }
      if (missing.length > 0) {
        process.stderr.write(`searchplane: not found: ${printable(missing.join(', '))}\n`);
        throw new ReportedFailure('documents not found');
      }
    },
  );

  docsCommand(docs, 'delete <index> <ids...>', 'delete documents by id')
    .option('--json', 'print {"deleted": n}')
    .action(async (ref: string, given: string[], flags: NamespaceFlags, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      const target = client.dataPlaneOf(record);
      const ids = [...new Set(given)];
      let deleted = 0;
      for (const chunk of chunks(ids, perRequestLimit(record.max_writes_per_request, READS_PER_REQUEST))) {
        const result = await client.dataPlane<{ deleted: number }>(target, 'delete', flags.namespace, { ids: chunk });
        deleted += result.deleted;
      }
      if (flags.json) printJson({ deleted });
      else {
        const absent = ids.length - deleted;
        const notFound = absent > 0 ? ` (${formatCount(absent)} not found)` : '';
        printText(
          `deleted ${formatCount(deleted)} of ${plural(ids.length, 'document')} from ${record.name}${notFound}`,
        );
      }
    });

  return docs;
}

/** The document count of a namespace, for the export's percentage and ETA. */
async function namespaceSize(
  client: ApiClient,
  target: DataPlaneTarget,
  namespace: string,
): Promise<number | undefined> {
  const info = await client.dataPlane<{ namespaces?: Record<string, { vectorCount?: number }> }>(
    target,
    'info',
    '',
    {},
  );
  return info.namespaces?.[namespace]?.vectorCount;
}

function chunks<T>(items: T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
