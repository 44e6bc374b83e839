import { type Kysely, sql, type Transaction } from 'kysely';
import { AppError } from '../../errors.js';
import type { DB } from '../../store/schema.js';
import type { StoreChange } from '../embedded/document-store.js';
import { blobToVector, vectorToBlob } from '../embedded/vector-math.js';
import { type PreparedDocument, preparedFromStored } from '../query/document-validation.js';

type Executor = Kysely<DB> | Transaction<DB>;

/** An index's row in `index_heads`. */
export interface RecordHead {
  seq: number;
  documentCount: number;
  storedBytes: number;
  prunedSeq: number;
  embedder: string | null;
  dimensions: number | null;
}

/** Changes read from the record after some change number, in order, and the head they lead to. */
export interface ChangeRead {
  head: RecordHead | undefined;
  /** Whether the reader must first drop everything it has (its position was pruned away). */
  rebuild: boolean;
  /** With `rebuild`: every namespace that exists (some may hold no documents). */
  namespaces: string[];
}

/** Documents read per query while catching up, which bounds a catch-up's memory. */
export const CHANGE_PAGE = 2000;

const EMPTY_HEAD: RecordHead = {
  seq: 0,
  documentCount: 0,
  storedBytes: 0,
  prunedSeq: 0,
  embedder: null,
  dimensions: null,
};

/*
 * SQL over the PostgreSQL system of record of index data (migration 0005). The change log of an
 * index is the union of its documents' versions (`index_documents.seq`, the change that wrote the
 * version) and its removals (`index_changes`), numbered by one per-index sequence kept in
 * `index_heads.seq`. Writers take the head row's lock, so changes get gapless, ordered numbers and
 * `document_count` is exact.
 */

export async function readHeadSeq(db: Executor, indexId: string): Promise<number> {
  const row = await db.selectFrom('index_heads').select('seq').where('index_id', '=', indexId).executeTakeFirst();
  return row ? Number(row.seq) : 0;
}

export async function readHead(db: Executor, indexId: string): Promise<RecordHead | undefined> {
  const row = await db.selectFrom('index_heads').selectAll().where('index_id', '=', indexId).executeTakeFirst();
  return row ? toHead(row) : undefined;
}

/**
 * Locks the index for writing: the index record must still exist (its row is share-locked, so a
 * concurrent index delete waits for this write or makes it fail, and no data is left orphaned) and
 * its head row is created if needed and locked. Returns the head.
 */
export async function lockForWrite(trx: Transaction<DB>, indexId: string): Promise<RecordHead> {
  const exists = await sql`SELECT 1 FROM search_indexes WHERE id = ${indexId} FOR SHARE`.execute(trx);
  if (exists.rows.length === 0) throw new AppError('index_not_found', 'Search index not found');
  await trx
    .insertInto('index_heads')
    .values({ index_id: indexId })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const row = await trx
    .selectFrom('index_heads')
    .selectAll()
    .where('index_id', '=', indexId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return toHead(row);
}

/** Ids and stored sizes of the documents of `namespace` among `ids` that exist. */
export async function existingDocuments(
  trx: Transaction<DB>,
  indexId: string,
  namespace: string,
  ids: string[],
): Promise<Map<string, number>> {
  const rows = await trx
    .selectFrom('index_documents')
    .select([
      'id',
      sql<number>`octet_length(content) + coalesce(octet_length(metadata), 0) + octet_length(vector)`.as('bytes'),
    ])
    .where('index_id', '=', indexId)
    .where('namespace', '=', namespace)
    .where('id', '=', sql<string>`ANY(${ids}::text[])`)
    .execute();
  return new Map(rows.map((row) => [row.id, Number(row.bytes)]));
}

/** Writes new versions (seq `firstSeq`, `firstSeq + 1`, … in order); returns their stored bytes. */
export async function writeDocuments(
  trx: Transaction<DB>,
  indexId: string,
  namespace: string,
  docs: PreparedDocument[],
  vectors: Float32Array[],
  firstSeq: number,
): Promise<number> {
  let bytes = 0;
  const rows = docs.map((doc, i) => {
    const vector = vectorToBlob(vectors[i]);
    bytes +=
      Buffer.byteLength(doc.content) + (doc.metadata === null ? 0 : Buffer.byteLength(doc.metadata)) + vector.length;
    return {
      index_id: indexId,
      namespace,
      id: doc.id,
      seq: firstSeq + i,
      content: doc.content,
      metadata: doc.metadata,
      vector,
    };
  });
  await trx
    .insertInto('index_documents')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['index_id', 'namespace', 'id']).doUpdateSet({
        seq: (eb) => eb.ref('excluded.seq'),
        content: (eb) => eb.ref('excluded.content'),
        metadata: (eb) => eb.ref('excluded.metadata'),
        vector: (eb) => eb.ref('excluded.vector'),
      }),
    )
    .execute();
  await trx
    .insertInto('index_namespaces')
    .values({ index_id: indexId, namespace })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return bytes;
}

/** Deletes documents by id; returns the removed ids with their stored bytes. */
export async function removeDocuments(
  trx: Transaction<DB>,
  indexId: string,
  namespace: string,
  ids: string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .deleteFrom('index_documents')
    .where('index_id', '=', indexId)
    .where('namespace', '=', namespace)
    // One array parameter: a delete by prefix or filter may name more ids than PostgreSQL's 65,535 parameters.
    .where('id', '=', sql<string>`ANY(${ids}::text[])`)
    .returning([
      'id',
      sql<number>`octet_length(content) + coalesce(octet_length(metadata), 0) + octet_length(vector)`.as('bytes'),
    ])
    .execute();
  return new Map(rows.map((row) => [row.id, Number(row.bytes)]));
}

/** Deletes every document of the namespace (and the namespace with `drop`); returns count and bytes. */
export async function clearNamespace(
  trx: Transaction<DB>,
  indexId: string,
  namespace: string,
  drop: boolean,
): Promise<{ count: number; bytes: number }> {
  const row = await sql<{ count: number; bytes: number }>`
    WITH gone AS (
      DELETE FROM index_documents WHERE index_id = ${indexId} AND namespace = ${namespace}
      RETURNING octet_length(content) + coalesce(octet_length(metadata), 0) + octet_length(vector) AS bytes
    )
    SELECT count(*)::bigint AS count, coalesce(sum(bytes), 0)::bigint AS bytes FROM gone`.execute(trx);
  if (drop) {
    await trx
      .deleteFrom('index_namespaces')
      .where('index_id', '=', indexId)
      .where('namespace', '=', namespace)
      .execute();
  }
  return { count: Number(row.rows[0].count), bytes: Number(row.rows[0].bytes) };
}

export async function namespaceExists(trx: Executor, indexId: string, namespace: string): Promise<boolean> {
  const row = await trx
    .selectFrom('index_namespaces')
    .select('namespace')
    .where('index_id', '=', indexId)
    .where('namespace', '=', namespace)
    .executeTakeFirst();
  return row !== undefined;
}

/** Appends removals to the change log, numbered from `firstSeq`. */
export async function logRemovals(
  trx: Transaction<DB>,
  indexId: string,
  removals: { kind: 'delete' | 'reset' | 'drop-namespace'; namespace: string; id?: string }[],
  firstSeq: number,
  now: number,
): Promise<void> {
  if (removals.length === 0) return;
  const rows = removals.map((removal, i) => ({
    index_id: indexId,
    seq: firstSeq + i,
    kind: removal.kind,
    namespace: removal.namespace,
    id: removal.id ?? null,
    created_at: now,
  }));
  for (let start = 0; start < rows.length; start += 5000) {
    await trx
      .insertInto('index_changes')
      .values(rows.slice(start, start + 5000))
      .execute();
  }
}

export async function updateHead(trx: Transaction<DB>, indexId: string, head: RecordHead): Promise<void> {
  await trx
    .updateTable('index_heads')
    .set({
      seq: head.seq,
      document_count: head.documentCount,
      stored_bytes: head.storedBytes,
      embedder: head.embedder,
      dimensions: head.dimensions,
    })
    .where('index_id', '=', indexId)
    .execute();
}

/** Tells every node (LISTEN) that the index changed; delivered when the transaction commits. */
export async function notify(db: Executor, channel: string, payload: string): Promise<void> {
  await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
}

/**
 * Reads every change after `after`, in order, page by page: each page goes to `apply` before the
 * next is read (the first page carries what the reader must know up front). Run it in one
 * REPEATABLE READ transaction, or under the head lock, so that every page comes from one state
 * of the index, the returned head's. When `after` was pruned away (or is ahead of the record),
 * the read starts over from the beginning with `rebuild` set.
 */
export async function readChanges(
  db: Executor,
  indexId: string,
  after: number,
  apply: (changes: StoreChange[], page: { first: boolean; last: boolean; read: ChangeRead }) => Promise<void>,
): Promise<ChangeRead> {
  const headRow = await db.selectFrom('index_heads').selectAll().where('index_id', '=', indexId).executeTakeFirst();
  const head = headRow ? toHead(headRow) : undefined;
  const target = head?.seq ?? 0;
  // From nothing, the documents table alone is the final state: no removal needs replaying.
  const rebuild = after === 0 || after > target || after < (head?.prunedSeq ?? 0);
  const from = rebuild ? 0 : after;
  const read: ChangeRead = { head, rebuild, namespaces: [] };
  const removals: { seq: number; change: StoreChange }[] = [];
  if (rebuild) {
    const rows = await db.selectFrom('index_namespaces').select('namespace').where('index_id', '=', indexId).execute();
    read.namespaces = rows.map((row) => row.namespace);
  } else if (from < target) {
    const rows = await db
      .selectFrom('index_changes')
      .select(['seq', 'kind', 'namespace', 'id'])
      .where('index_id', '=', indexId)
      .where('seq', '>', from)
      .where('seq', '<=', target)
      .orderBy('seq')
      .execute();
    for (const row of rows) {
      const change: StoreChange =
        row.kind === 'delete'
          ? { kind: 'delete', namespace: row.namespace, id: row.id ?? '' }
          : { kind: row.kind as 'reset' | 'drop-namespace', namespace: row.namespace };
      removals.push({ seq: Number(row.seq), change });
    }
  }
  let nextRemoval = 0;
  let cursor = from;
  for (let first = true; ; first = false) {
    const rows =
      cursor < target
        ? await db
            .selectFrom('index_documents')
            .select(['namespace', 'id', 'seq', 'content', 'metadata', 'vector'])
            .where('index_id', '=', indexId)
            .where('seq', '>', cursor)
            .where('seq', '<=', target)
            .orderBy('seq')
            .limit(CHANGE_PAGE)
            .execute()
        : [];
    const last = rows.length < CHANGE_PAGE;
    const page: StoreChange[] = [];
    for (const row of rows) {
      const seq = Number(row.seq);
      while (nextRemoval < removals.length && removals[nextRemoval].seq < seq)
        page.push(removals[nextRemoval++].change);
      page.push({
        kind: 'upsert',
        namespace: row.namespace,
        label: seq,
        doc: toPrepared(row),
        vector: blobToVector(row.vector),
      });
      cursor = seq;
    }
    if (last) {
      while (nextRemoval < removals.length) page.push(removals[nextRemoval++].change);
      page.push(...(await namespacesRemovedFrom(db, indexId, removals)));
    }
    await apply(page, { first, last, read });
    if (last) return read;
  }
}

/**
 * The namespaces that the replayed removals name and that exist at the head, as changes that
 * create them. Replay skips a removal in a namespace the reader does not have, and one created and
 * emptied after its position (its documents' rows gone) would otherwise never reach it.
 */
async function namespacesRemovedFrom(
  db: Executor,
  indexId: string,
  removals: { change: StoreChange }[],
): Promise<StoreChange[]> {
  const named = [...new Set(removals.map((removal) => removal.change.namespace))];
  if (named.length === 0) return [];
  const rows = await db
    .selectFrom('index_namespaces')
    .select('namespace')
    .where('index_id', '=', indexId)
    .where('namespace', 'in', named)
    .execute();
  return rows.map((row) => ({ kind: 'namespace', namespace: row.namespace }));
}

/** Removes all data of an index from the record. */
export async function deleteIndexData(db: Executor, indexId: string): Promise<void> {
  await db.deleteFrom('index_documents').where('index_id', '=', indexId).execute();
  await db.deleteFrom('index_changes').where('index_id', '=', indexId).execute();
  await db.deleteFrom('index_namespaces').where('index_id', '=', indexId).execute();
  await db.deleteFrom('index_heads').where('index_id', '=', indexId).execute();
}

/** Ids of indexes with data in the record but no index record any more (crash between the two deletes). */
export async function orphanedIndexIds(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('index_heads')
    .select('index_id')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('search_indexes').select('id').whereRef('search_indexes.id', '=', 'index_heads.index_id'))),
    )
    .execute();
  return rows.map((row) => row.index_id);
}

/**
 * Forgets removals older than `before` (unix seconds), recording per index the highest change
 * pruned: a replica whose position is older rebuilds instead of replaying.
 */
export async function pruneRemovals(db: Kysely<DB>, before: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const pruned = await sql<{ index_id: string; seq: number }>`
      WITH gone AS (DELETE FROM index_changes WHERE created_at < ${before} RETURNING index_id, seq)
      SELECT index_id, max(seq)::bigint AS seq FROM gone GROUP BY index_id`.execute(trx);
    for (const row of pruned.rows) {
      await trx
        .updateTable('index_heads')
        .set({ pruned_seq: sql`greatest(pruned_seq, ${Number(row.seq)})` })
        .where('index_id', '=', row.index_id)
        .execute();
    }
    return pruned.rows.length;
  });
}

export { EMPTY_HEAD };

function toHead(row: {
  seq: number;
  document_count: number;
  stored_bytes: number;
  pruned_seq: number;
  embedder: string | null;
  dimensions: number | null;
}): RecordHead {
  return {
    seq: Number(row.seq),
    documentCount: Number(row.document_count),
    storedBytes: Number(row.stored_bytes),
    prunedSeq: Number(row.pruned_seq),
    embedder: row.embedder,
    dimensions: row.dimensions === null ? null : Number(row.dimensions),
  };
}

function toPrepared(row: { id: string; content: string; metadata: string | null }): PreparedDocument {
  return preparedFromStored(row.id, row.content, row.metadata);
}
