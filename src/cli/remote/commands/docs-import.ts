import type { Command } from 'commander';
import { printJson, ReportedFailure, UsageError } from '../../cli-support.js';
import { RemoteError } from '../http-request.js';
import { DocumentImporter } from '../import/document-importer.js';
import type { ImportDocument } from '../import/import-document.js';
import { formatFromName, type ImportFormat, openImportSource } from '../import/import-sources.js';
import { SourceError } from '../import/source-error.js';
import { perRequestLimit, resolveIndex } from '../index-resolver.js';
import { formatCount, plural, printable, printText } from '../output.js';
import { createProgress, formatDuration, type Progress } from '../progress.js';
import { connect } from '../remote-context.js';
import type { RetryListener } from '../retry.js';

export interface ImportFlags {
  namespace: string;
  format?: ImportFormat;
  idColumn?: string;
  contentColumns?: string[];
  batchSize?: number;
  progress: boolean;
  json?: boolean;
}

/** Documents per upsert when the index has no `max_writes_per_request` (-1). */
const UNLIMITED_BATCH = 1000;
/** Upsert bodies stay under this, well inside the server's default 1 MiB body limit. */
const MAX_BATCH_BYTES = 768 * 1024;

/** `docs import <index> <file>`: streams the file into the index in batches; see README "CLI". */
export async function importDocuments(ref: string, file: string, flags: ImportFlags, command: Command): Promise<void> {
  const format = importFormat(file, flags);
  const client = connect(command);
  const record = await resolveIndex(client, ref);
  const source = openImportSource(file, {
    format,
    csv: { idColumn: flags.idColumn ?? 'id', contentColumns: flags.contentColumns },
  });
  const progress = createProgress({ verb: 'imported', stream: process.stderr, enabled: flags.progress });
  const onRetry = retryNotice(progress);
  const target = client.dataPlaneOf(record);
  const fraction = () => (source.totalBytes ? source.bytesRead() / source.totalBytes : undefined);
  const importer = new DocumentImporter({
    maxDocuments: Math.min(
      flags.batchSize ?? Number.POSITIVE_INFINITY,
      perRequestLimit(record.max_writes_per_request, UNLIMITED_BATCH),
    ),
    maxBytes: MAX_BATCH_BYTES,
    upsert: (documents: ImportDocument[]) =>
      client.dataPlane(target, 'upsert-data', flags.namespace, documents, onRetry).then(() => undefined),
    onProgress: (imported) => progress.update(imported, fraction()),
  });

  const started = Date.now();
  let read = 0;
  let stopped: Error | undefined;
  try {
    for await (const { document } of source.documents()) {
      read++;
      await importer.add(document);
    }
    await importer.flush();
  } catch (error) {
    if (!(error instanceof RemoteError || error instanceof SourceError)) throw error;
    stopped = error;
    // Everything before a bad record is imported, so the file can be fixed and imported again.
    if (error instanceof SourceError) await importer.flush().catch(() => undefined);
  }
  progress.finish();
  reportImport({
    name: record.name,
    file: source.name,
    flags,
    importer,
    read,
    stopped,
    seconds: (Date.now() - started) / 1000,
  });
}

/** The format to read, checking that the CSV options go with a CSV file. */
function importFormat(file: string, flags: ImportFlags): ImportFormat | undefined {
  const csvOptions = flags.idColumn !== undefined || flags.contentColumns !== undefined;
  const format = flags.format ?? formatFromName(file) ?? (csvOptions ? 'csv' : undefined);
  if (csvOptions && format !== undefined && format !== 'csv') {
    throw new UsageError('--id-column and --content-columns apply to CSV files only');
  }
  return format;
}

function retryNotice(progress: Progress): RetryListener {
  return ({ error, delayMs, attempt }) =>
    progress.note(`${error.message}; retrying in ${formatDuration(delayMs / 1000)} (attempt ${attempt + 1})`);
}

interface ImportOutcome {
  name: string;
  file: string;
  flags: ImportFlags;
  importer: DocumentImporter;
  read: number;
  stopped?: Error;
  seconds: number;
}

/** The summary on stdout; failed ids and the reason for stopping on stderr; exit 1 if any. */
function reportImport(outcome: ImportOutcome): void {
  const { importer, flags, stopped, seconds } = outcome;
  if (flags.json) {
    printJson({
      imported: importer.imported,
      failed: importer.failures,
      ...(stopped ? { stopped: stopped.message } : {}),
      seconds: Math.round(seconds * 1000) / 1000,
    });
  } else {
    const where = `${outcome.name}${flags.namespace ? ` (namespace ${flags.namespace})` : ''}`;
    const rate = seconds > 0 ? `, ${Math.round(importer.imported / seconds).toLocaleString('en-US')} docs/s` : '';
    const count =
      importer.failures.length > 0 || stopped
        ? `${formatCount(importer.imported)} of ${plural(outcome.read, 'document')}`
        : plural(importer.imported, 'document');
    printText(`imported ${count} into ${where} in ${seconds.toFixed(1)} s${rate}`);
  }
  for (const failure of importer.failures) {
    process.stderr.write(`searchplane: not imported: ${printable(`${failure.ids.join(', ')}: ${failure.error}`)}\n`);
  }
  if (stopped) {
    process.stderr.write(
      `searchplane: import stopped, the rest of ${outcome.file} was not read: ${printable(stopped.message)}\n`,
    );
  }
  if (importer.failures.length > 0 || stopped) throw new ReportedFailure('import incomplete');
}
