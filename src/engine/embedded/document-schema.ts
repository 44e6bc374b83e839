/** The tables of one index's SQLite file (document-store.ts), created when missing. */
export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS namespaces (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE);
  -- label = rowid: a fresh AUTOINCREMENT value per document version, never reused, so an HNSW label
  -- can always be checked against SQLite and stale vectors are recognizable forever.
  CREATE TABLE IF NOT EXISTS documents (
    label INTEGER PRIMARY KEY AUTOINCREMENT,
    ns INTEGER NOT NULL,
    id TEXT NOT NULL,
    content BLOB NOT NULL,
    metadata BLOB
  );
  CREATE UNIQUE INDEX IF NOT EXISTS documents_ns_id ON documents (ns, id);
  -- Vectors live apart so that filter scans over documents do not page through them.
  CREATE TABLE IF NOT EXISTS embeddings (label INTEGER PRIMARY KEY, vector BLOB NOT NULL);
`;

/** The rows of `documents d` that have no vector yet (stored by DocumentStore.writeUnembedded). */
export const WITHOUT_VECTOR = 'NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.label = d.label)';
/** Meta key: documents may be stored without their vector (unset once all have one). */
export const UNEMBEDDED_META = 'unembedded';
