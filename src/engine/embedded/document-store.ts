import Database from 'better-sqlite3';
import { checkVectorLimit, type PreparedDocument } from '../query/document-validation.js';
import { openFailure } from './descriptor-probe.js';
import { SCHEMA, UNEMBEDDED_META, WITHOUT_VECTOR } from './document-schema.js';
import { droppedNativeMemory } from './idle-collection.js';
import { encodeVector, storedCode, type VectorCode } from './vector-codes.js';

/**
 * Bounds of each index's prepared-statement cache: the store's own statements (about 20) stay
 * hot, and filters compiled to SQL take the rest. A statement costs tens of KB plus its SQL.
 */
export const STATEMENT_CACHE = { maxStatements: 64, maxSqlChars: 512 * 1024 } as const;

/**
 * What an evicted statement is counted as holding until it is collected: its compiled program,
 * estimated at a few bytes per character of SQL (filters' SQL compiles to several opcodes per
 * condition), plus a fixed part.
 */
const statementBytes = (sql: string) => 2048 + 4 * sql.length;

/** A written document version's vector, as it comes back to be stored. */
export interface EmbeddedDocument {
  label: number;
  id: string;
  vector: VectorCode;
}

/** What SQLite keeps of a document. */
export type StorableDocument = Pick<PreparedDocument, 'id' | 'content' | 'metadata'>;

/** Outcome of one atomic write: versions that now exist and labels that no longer do. */
export interface WriteResult {
  added: { label: number; vector: VectorCode; doc: PreparedDocument }[];
  removed: number[];
}

/** A change decided by the system of record, applied to this local copy with its label. */
export type StoreChange =
  | { kind: 'upsert'; namespace: string; label: number; doc: PreparedDocument; vector: Float32Array }
  | { kind: 'delete'; namespace: string; id: string }
  | { kind: 'reset' | 'drop-namespace' | 'namespace'; namespace: string };

/** What {@link DocumentStore.apply} changed, per namespace id. */
export interface AppliedChanges {
  byNamespace: Map<number, WriteResult>;
  /** Namespaces whose earlier documents were all removed (their derived indexes start over). */
  cleared: Set<number>;
}

/**
 * One index's SQLite file: namespaces, documents (content/metadata as JSONB so filters skip JSON
 * parsing) and embeddings. The full-text index is derived from the documents in memory
 * (full-text/). WAL + synchronous=NORMAL: a committed write survives a process crash; only an OS
 * crash can lose the last transactions.
 */
export class DocumentStore {
  readonly db: Database.Database;
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly statements = new Map<string, Database.Statement>();
  private statementChars = 0;
  private readonly namespaceIds = new Map<string, number>();
  private readonly counts = new Map<number, number>();
  /** The vectors' dimensions, read from the meta table when first needed. */
  private dimensions: number | undefined;
  /** Meta key `unembedded`: documents may be stored without their vector (see {@link unembedded}). */
  private mayHaveUnembedded = false;

  constructor(file: string) {
    try {
      this.db = new Database(file);
    } catch (error) {
      throw openFailure(error);
    }
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // No memory map: every page it touched would count in the process's resident set for as long
      // as the index is open (a search's row reads map their neighbours too, by the kernel's
      // fault-around), hundreds of MB at 200k documents. It only made filter scans faster, and a
      // filter's matches are cached (filter-matches.ts); docs/performance.md has the figures.
      this.db.pragma('mmap_size = 0');
      this.db.pragma('cache_size = -8192');
      this.db.exec(SCHEMA);
      this.dropLegacyFullText();
      this.reloadNamespaces();
      this.mayHaveUnembedded = this.getMeta(UNEMBEDDED_META) !== undefined;
    } catch (error) {
      const failure = openFailure(error);
      // Now, not when collected: the failure may be for want of the descriptors this one holds.
      this.db.close();
      throw failure;
    }
  }

  /**
   * A prepared statement, cached (least recently used first out) within {@link STATEMENT_CACHE}:
   * SQL is built from constants, numeric ids and compiled filters (values are parameters), and a
   * filter's shape comes from the client, so without a bound every distinct filter would keep a
   * compiled statement alive for as long as the index stays open. An evicted statement is
   * finalized by better-sqlite3 when it is garbage collected, which {@link droppedNativeMemory}
   * makes happen once evicted statements add up.
   */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql); // re-inserted below: most recently used
    } else {
      statement = this.db.prepare(sql);
      this.statementChars += sql.length;
    }
    this.statements.set(sql, statement);
    while (
      this.statements.size > 1 &&
      (this.statements.size > STATEMENT_CACHE.maxStatements || this.statementChars > STATEMENT_CACHE.maxSqlChars)
    ) {
      const oldest = this.statements.keys().next().value!;
      this.statements.delete(oldest);
      this.statementChars -= oldest.length;
      droppedNativeMemory.note(statementBytes(oldest));
    }
    return statement;
  }

  /** Statements cached now (for tests of the bound). */
  get cachedStatements(): number {
    return this.statements.size;
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql)
      .pluck(false)
      .all(...params) as T[];
  }

  /** The first column of every row, for queries selecting labels. */
  labels(sql: string, ...params: unknown[]): number[] {
    return this.statement(sql)
      .pluck(true)
      .all(...params) as number[];
  }

  getMeta(key: string): string | undefined {
    return (this.statement('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ).run(key, value);
  }

  namespaceId(name: string): number | undefined {
    return this.namespaceIds.get(name);
  }

  namespaces(): [string, number][] {
    return [...this.namespaceIds];
  }

  documentCount(nsId: number): number {
    return this.counts.get(nsId) ?? 0;
  }

  totalCount(): number {
    let total = 0;
    for (const count of this.counts.values()) total += count;
    return total;
  }

  /**
   * Replaces documents by (namespace, id) in one transaction, creating the namespace on first use.
   * Rolls back everything with `vector_limit_exceeded` when the index would grow past `maxVectorCount`.
   */
  write(namespace: string, docs: PreparedDocument[], vectors: Float32Array[], maxVectorCount: number): WriteResult {
    const result: WriteResult = { added: [], removed: [] };
    this.writeBatch(namespace, maxVectorCount, result.removed, (nsId) => {
      for (let i = 0; i < docs.length; i++) {
        const code = encodeVector(vectors[i]);
        const label = this.replace(nsId, docs[i], code, undefined, result.removed);
        result.added.push({ label, vector: code, doc: docs[i] });
      }
      return docs.length;
    });
    return result;
  }

  /**
   * As {@link write}, without vectors: the new versions (labels returned in `added`) wait for
   * {@link addEmbeddings}; until then {@link unembedded} lists them, also after a restart.
   */
  writeUnembedded(
    namespace: string,
    docs: StorableDocument[],
    maxVectorCount: number,
  ): { added: number[]; removed: number[] } {
    const result = { added: [] as number[], removed: [] as number[] };
    this.writeBatch(namespace, maxVectorCount, result.removed, (nsId) => {
      if (!this.mayHaveUnembedded) {
        this.setMeta(UNEMBEDDED_META, '1'); // in the write's transaction: set whenever such a row exists
        this.mayHaveUnembedded = true;
      }
      for (const doc of docs) result.added.push(this.replace(nsId, doc, undefined, undefined, result.removed));
      return docs.length;
    });
    return result;
  }

  /**
   * Stores the vectors of documents of namespace `nsId` written by {@link writeUnembedded}, in one
   * transaction; per entry, whether it was stored (false when that version was replaced or deleted
   * meanwhile, or already has its vector). Whether the version still exists is read from the
   * (namespace, id) index, which holds the label: looking the label up in the table would read the
   * document's own page, and through the memory map every document of a bulk load would stay
   * resident.
   */
  addEmbeddings(nsId: number, entries: EmbeddedDocument[]): boolean[] {
    const insert = this.statement(
      'INSERT OR IGNORE INTO embeddings (label, vector) SELECT ?, ? WHERE EXISTS ' +
        '(SELECT 1 FROM documents INDEXED BY documents_ns_id WHERE ns = ? AND id = ? AND label = ?)',
    );
    return this.db.transaction(() =>
      entries.map(({ label, id, vector }) => insert.run(label, vector, nsId, id, label).changes === 1),
    )();
  }

  /**
   * Documents without a vector (see {@link writeUnembedded}), by namespace id, in label order. Reads
   * the documents table only when some may exist (not since {@link markAllEmbedded}).
   */
  unembedded(): Map<number, number[]> {
    const byNamespace = new Map<number, number[]>();
    if (!this.mayHaveUnembedded) return byNamespace;
    const rows = this.all<{ ns: number; label: number }>(
      `SELECT ns, label FROM documents d WHERE ${WITHOUT_VECTOR} ORDER BY label`,
    );
    for (const { ns, label } of rows) {
      const labels = byNamespace.get(ns);
      if (labels) labels.push(label);
      else byNamespace.set(ns, [label]);
    }
    return byNamespace;
  }

  /**
   * The stored vectors (codes) of labels that still exist. Files written before vectors were kept
   * in 8 bits hold float32 blobs: those are encoded as they are read.
   */
  vectorCodes(labels: Iterable<number>): Map<number, VectorCode> {
    const rows = this.all<{ label: number; vector: Buffer }>(
      'SELECT label, vector FROM embeddings WHERE label IN (SELECT value FROM json_each(?))',
      JSON.stringify([...labels]),
    );
    if (rows.length === 0) return new Map();
    this.dimensions ??= Number(this.getMeta('dimensions'));
    const dimensions = this.dimensions;
    // Without recorded dimensions nothing older was written: every blob is a code.
    return new Map(
      rows.map((row) => [row.label, Number.isNaN(dimensions) ? row.vector : storedCode(row.vector, dimensions)]),
    );
  }

  /** Records that every document has its vector (the caller knows: its backlog is empty). */
  markAllEmbedded(): void {
    if (!this.mayHaveUnembedded) return;
    this.statement(`DELETE FROM meta WHERE key = '${UNEMBEDDED_META}'`).run();
    this.mayHaveUnembedded = false;
  }

  /** One write transaction: creates the namespace on first use, checks the vector limit, updates the count. */
  private writeBatch(
    namespace: string,
    maxVectorCount: number,
    removed: number[],
    body: (nsId: number) => number,
  ): void {
    const totalBefore = this.totalCount();
    let added = 0;
    const nsId = this.db.transaction(() => {
      const id = this.ensureNamespace(namespace);
      added = body(id);
      checkVectorLimit(maxVectorCount, totalBefore, totalBefore + added - removed.length);
      return id;
    })();
    this.namespaceIds.set(namespace, nsId);
    this.counts.set(nsId, this.documentCount(nsId) + added - removed.length);
  }

  /**
   * Applies changes decided elsewhere (the system of record), in order, in one transaction with
   * the new `watermark` when given (meta key `watermark`). Upserts carry their label; applying a version that
   * is already here is a no-op, so replaying changes after a crash is safe. Returns what changed
   * per namespace id; a namespace in `cleared` lost all its earlier documents (reset or dropped).
   */
  apply(changes: StoreChange[], watermark?: number): AppliedChanges {
    const applied: AppliedChanges = { byNamespace: new Map(), cleared: new Set() };
    const effects = (nsId: number): WriteResult => {
      let effect = applied.byNamespace.get(nsId);
      if (!effect) {
        effect = { added: [], removed: [] };
        applied.byNamespace.set(nsId, effect);
      }
      return effect;
    };
    this.db.transaction(() => {
      for (const change of changes) {
        if (change.kind === 'upsert') {
          const nsId = this.ensureNamespace(change.namespace);
          const current = this.statement('SELECT label FROM documents WHERE ns = ? AND id = ?').get(
            nsId,
            change.doc.id,
          ) as { label: number } | undefined;
          if (current && current.label >= change.label) continue;
          const effect = effects(nsId);
          const code = encodeVector(change.vector);
          const label = this.replace(nsId, change.doc, code, change.label, effect.removed);
          effect.added.push({ label, vector: code, doc: change.doc });
        } else if (change.kind === 'namespace') {
          this.ensureNamespace(change.namespace);
        } else {
          const nsId = this.lookupNamespace(change.namespace);
          if (nsId === undefined) continue;
          if (change.kind === 'delete') {
            const old = this.statement('DELETE FROM documents WHERE ns = ? AND id = ? RETURNING label').get(
              nsId,
              change.id,
            ) as { label: number } | undefined;
            if (old) {
              this.removeIndexEntries([old.label]);
              effects(nsId).removed.push(old.label);
            }
          } else {
            this.clearRows(nsId, change.kind === 'drop-namespace');
            applied.byNamespace.delete(nsId);
            applied.cleared.add(nsId);
          }
        }
      }
      if (watermark !== undefined) this.setMeta('watermark', String(watermark));
    })();
    this.reloadNamespaces();
    return applied;
  }

  /** The highest change applied by {@link apply}, 0 before the first. */
  watermark(): number {
    return Number(this.getMeta('watermark') ?? 0);
  }

  /** Deletes the documents a `SELECT label ...` query returns (params follow), in one transaction. */
  deleteWhere(nsId: number, labelQuery: string, params: unknown[]): number[] {
    const labels = this.db.transaction(() => {
      const found = this.labels(labelQuery, ...params);
      const remove = this.statement('DELETE FROM documents WHERE label = ?');
      for (const label of found) remove.run(label);
      this.removeIndexEntries(found);
      return found;
    })();
    this.counts.set(nsId, this.documentCount(nsId) - labels.length);
    return labels;
  }

  /** Removes every document of the namespace; with `drop` the namespace itself too. */
  clearNamespace(nsId: number, drop: boolean): void {
    this.db.transaction(() => this.clearRows(nsId, drop))();
    this.counts.set(nsId, 0);
    if (drop) {
      this.counts.delete(nsId);
      for (const [name, id] of this.namespaceIds) if (id === nsId) this.namespaceIds.delete(name);
    }
  }

  close(): void {
    this.db.close();
  }

  private ensureNamespace(name: string): number {
    const existing = this.lookupNamespace(name);
    if (existing !== undefined) return existing;
    return Number(this.statement('INSERT INTO namespaces (name) VALUES (?)').run(name).lastInsertRowid);
  }

  private lookupNamespace(name: string): number | undefined {
    return (this.statement('SELECT id FROM namespaces WHERE name = ?').get(name) as { id: number } | undefined)?.id;
  }

  /**
   * Replaces the document (namespace, id) by a new version (label given, or the next rowid), with
   * its vector when given; returns the new label and appends the replaced one to `removed`.
   */
  private replace(
    nsId: number,
    doc: StorableDocument,
    vector: VectorCode | undefined,
    label: number | undefined,
    removed: number[],
  ): number {
    const old = this.statement('DELETE FROM documents WHERE ns = ? AND id = ? RETURNING label').get(nsId, doc.id) as
      | { label: number }
      | undefined;
    if (old) {
      this.removeIndexEntries([old.label]);
      removed.push(old.label);
    }
    const inserted = this.statement(
      'INSERT INTO documents (label, ns, id, content, metadata) VALUES (?, ?, ?, jsonb(?), jsonb(?))',
    ).run(label ?? null, nsId, doc.id, doc.content, doc.metadata);
    const newLabel = Number(inserted.lastInsertRowid);
    if (vector) {
      this.statement('INSERT INTO embeddings (label, vector) VALUES (?, ?)').run(newLabel, vector);
    }
    return newLabel;
  }

  private clearRows(nsId: number, drop: boolean): void {
    this.statement('DELETE FROM embeddings WHERE label IN (SELECT label FROM documents WHERE ns = ?)').run(nsId);
    this.statement('DELETE FROM documents WHERE ns = ?').run(nsId);
    if (drop) this.statement('DELETE FROM namespaces WHERE id = ?').run(nsId);
  }

  /** Index files of earlier versions kept an FTS5 table per namespace; the full-text index is in memory now. */
  private dropLegacyFullText(): void {
    const tables = this.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'fts_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .pluck(true)
      .all() as string[];
    for (const table of tables) this.db.exec(`DROP TABLE IF EXISTS "${table}_vocab"; DROP TABLE IF EXISTS "${table}"`);
  }

  /** Re-reads namespaces and their document counts (after changes applied in bulk). */
  private reloadNamespaces(): void {
    this.namespaceIds.clear();
    this.counts.clear();
    for (const row of this.all<{ id: number; name: string }>('SELECT id, name FROM namespaces')) {
      this.namespaceIds.set(row.name, row.id);
      this.counts.set(row.id, 0);
    }
    for (const row of this.all<{ ns: number; n: number }>('SELECT ns, count(*) AS n FROM documents GROUP BY ns')) {
      this.counts.set(row.ns, row.n);
    }
  }

  private removeIndexEntries(labels: number[]): void {
    const removeVector = this.statement('DELETE FROM embeddings WHERE label = ?');
    for (const label of labels) removeVector.run(label);
  }
}
