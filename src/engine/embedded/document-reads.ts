import type { DocumentOutput, JsonObject, ReadOptions } from '../contract.js';
import type { DocumentStore } from './document-store.js';
import type { SqlFragment } from './filter-sql.js';

/** A documents row as selected by {@link columns}. */
export interface DocumentRow {
  label: number;
  id: string;
  content?: string;
  metadata?: string | null;
}

/** The select list for the requested parts; JSONB is converted to JSON text by SQLite. */
function columns(options: ReadOptions): string {
  return `label, id${options.includeData ? ', json(content) AS content' : ''}${options.includeMetadata ? ', json(metadata) AS metadata' : ''}`;
}

/**
 * What a read's documents cost in memory until its answer is sent, per byte stored: the rows as
 * read, the objects they are parsed into, the serialized answer and the bytes waiting for the
 * socket (30 concurrent 47 MB pages, counted at 1x against a 256 MiB budget, still took a node to
 * 1.7 GB).
 */
const MEMORY_PER_STORED_BYTE = 4;

/**
 * The rows of `SELECT <columns> <from>` (`from` names the documents table `d`), after the read's
 * budget has been told what they will cost, from their stored sizes: a first query reads those
 * without loading any document (SQLite takes a blob's length from its record header), so a read
 * refused for want of memory has read nothing. `sized` selects the rows to count when the answer
 * holds some more than once (a fetch that names an id twice).
 */
function readRows(
  store: DocumentStore,
  options: ReadOptions,
  from: string,
  params: unknown[],
  sized: { from: string; params: unknown[] } = { from, params },
): DocumentRow[] {
  if (options.budget && (options.includeData || options.includeMetadata)) {
    const size = `octet_length(d.id)${options.includeData ? ' + length(d.content)' : ''}${options.includeMetadata ? ' + ifnull(length(d.metadata), 0)' : ''}`;
    const stored = store
      .statement(`SELECT total(size) FROM (SELECT ${size} AS size ${sized.from})`)
      .pluck(true)
      .get(...sized.params) as number;
    options.budget.reserve(stored * MEMORY_PER_STORED_BYTE);
  }
  return store.all<DocumentRow>(`SELECT ${columns(options)} ${from}`, ...params);
}

/** Output shape: `content` / `metadata` keys only when requested (and, for metadata, present). */
export function toOutput(row: DocumentRow, options: ReadOptions): DocumentOutput {
  const output: DocumentOutput = { id: row.id };
  if (options.includeData && row.content !== undefined) output.content = JSON.parse(row.content) as JsonObject;
  if (options.includeMetadata && row.metadata) output.metadata = JSON.parse(row.metadata) as JsonObject;
  return output;
}

export function fetchByIds(
  store: DocumentStore,
  nsId: number,
  ids: string[],
  options: ReadOptions,
): (DocumentOutput | null)[] {
  const wanted = JSON.stringify(ids);
  const rows = readRows(
    store,
    options,
    'FROM documents d WHERE ns = ? AND id IN (SELECT value FROM json_each(?))',
    [nsId, wanted],
    // Each id as often as it was asked for: the answer repeats the document.
    {
      from: 'FROM json_each(?) AS wanted JOIN documents d ON d.ns = ? AND d.id = wanted.value',
      params: [wanted, nsId],
    },
  );
  const byId = new Map(rows.map((row) => [row.id, toOutput(row, options)]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * Documents ordered by id: after `after` (exclusive), starting with `prefix`, at most `limit`.
 * Keyset pagination on the (ns, id) index, so pages stay consistent under concurrent writes.
 */
export function listDocuments(
  store: DocumentStore,
  nsId: number,
  range: { after: string; prefix: string; limit: number },
  options: ReadOptions,
): DocumentOutput[] {
  const prefix = range.prefix ? idPrefixCondition(range.prefix) : { sql: '1', params: [] };
  const rows = readRows(
    store,
    options,
    `FROM documents d WHERE ns = ? AND id > ? AND ${prefix.sql} ORDER BY id LIMIT ?`,
    [nsId, range.after, ...prefix.params, range.limit],
  );
  return rows.map((row) => toOutput(row, options));
}

/**
 * `id` starts with `prefix`, as an index range: every such id sorts below prefix + byte 0xF5,
 * a byte that never occurs in UTF-8.
 */
export function idPrefixCondition(prefix: string): { sql: string; params: (string | Buffer)[] } {
  return {
    sql: 'id >= ? AND id < CAST(? AS TEXT)',
    params: [prefix, Buffer.concat([Buffer.from(prefix), Buffer.from([0xf5])])],
  };
}

/** Current rows for labels; labels of deleted or replaced versions are simply absent. */
export function rowsByLabels(store: DocumentStore, labels: number[], options: ReadOptions): Map<number, DocumentRow> {
  const rows = readRows(store, options, 'FROM documents d WHERE label IN (SELECT value FROM json_each(?))', [
    JSON.stringify(labels),
  ]);
  return new Map(rows.map((row) => [row.label, row]));
}

/** Labels of the namespace's documents matching a compiled filter. */
export function filterLabels(store: DocumentStore, nsId: number, filter: SqlFragment): number[] {
  // A namespace holding most of the index is read faster by a table scan than through the
  // (ns, id) index, whose row lookups jump around the table; the unary + disables the index.
  const scan = store.documentCount(nsId) * 4 > store.totalCount() ? '+' : '';
  return store.labels(
    `SELECT label FROM documents d WHERE ${scan}d.ns = ? AND (${filter.sql})`,
    nsId,
    ...filter.params,
  );
}
