import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL only: the system of record of index data (documents, vectors, change log) and the
 * shared per-second rate windows. In embedded (SQLite) mode each index's data lives in its own
 * files under the data dir, so these tables are not created there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await isPostgres(db))) return;
  // One row per index: the last change number (every write takes this row's lock, which orders
  // an index's changes and makes the document count exact), and the model of its vectors.
  await db.schema
    .createTable('index_heads')
    .ifNotExists()
    .addColumn('index_id', 'text', (col) => col.primaryKey())
    .addColumn('seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('document_count', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('stored_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('pruned_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('embedder', 'text')
    .addColumn('dimensions', 'integer')
    .execute();
  // The current version of every document; `seq` is the change that wrote it (its label on every node).
  await db.schema
    .createTable('index_documents')
    .ifNotExists()
    .addColumn('index_id', 'text', (col) => col.notNull())
    .addColumn('namespace', 'text', (col) => col.notNull())
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text')
    .addColumn('vector', 'bytea', (col) => col.notNull())
    .addPrimaryKeyConstraint('index_documents_pk', ['index_id', 'namespace', 'id'])
    .execute();
  await db.schema
    .createIndex('index_documents_seq')
    .ifNotExists()
    .on('index_documents')
    .columns(['index_id', 'seq'])
    .execute();
  // Removals, numbered in the same sequence as the documents' versions.
  await db.schema
    .createTable('index_changes')
    .ifNotExists()
    .addColumn('index_id', 'text', (col) => col.notNull())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('namespace', 'text', (col) => col.notNull())
    .addColumn('id', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('index_changes_pk', ['index_id', 'seq'])
    .execute();
  await db.schema
    .createTable('index_namespaces')
    .ifNotExists()
    .addColumn('index_id', 'text', (col) => col.notNull())
    .addColumn('namespace', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('index_namespaces_pk', ['index_id', 'namespace'])
    .execute();
  // Per-second request windows shared by every node (see postgres-rate-limiter.ts).
  await db.schema
    .createTable('rate_windows')
    .ifNotExists()
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('window_start', 'bigint', (col) => col.notNull())
    .addColumn('used', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('rate_windows_pk', ['key', 'window_start'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['rate_windows', 'index_namespaces', 'index_changes', 'index_documents', 'index_heads']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}

/** PostgreSQL answers `current_setting`; SQLite has no such function (and a failed statement does not abort its transaction). */
async function isPostgres(db: Kysely<unknown>): Promise<boolean> {
  try {
    await sql`select current_setting('server_version_num')`.execute(db);
    return true;
  } catch {
    return false;
  }
}
