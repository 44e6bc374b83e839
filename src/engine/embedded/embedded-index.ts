import { basename } from 'node:path';
import { AppError, forWantOfDescriptors } from '../../errors.js';
import type {
  DeleteSelector,
  DocumentInput,
  DocumentOutput,
  FetchSelector,
  IndexEngine,
  IndexInfo,
  RangeRequest,
  RangeResult,
  ReadOptions,
  SearchOutcome,
  SearchRequest,
  UpsertOptions,
} from '../contract.js';
import type { CpuTurns } from '../cpu-turns.js';
import type { Embedder, Enricher, Reranker } from '../providers/provider-types.js';
import { type PreparedDocument, prepareDocuments } from '../query/document-validation.js';
import { parseFilter } from '../query/filter-parser.js';
import {
  checkIds,
  checkLimit,
  checkNamespace,
  checkPrefix,
  decodeCursor,
  encodeCursor,
} from '../query/request-checks.js';
import { documentsByLabels, fetchByIds, idPrefixCondition, listDocuments } from './document-reads.js';
import { DocumentStore, type StoreChange } from './document-store.js';
import { compileFilter, type SqlFragment } from './filter-sql.js';
import { IndexEmbedder } from './index-embedder.js';
import { databaseFile, folderSize } from './index-files.js';
import { IndexingBacklog } from './indexing-backlog.js';
import { NamespaceIndexes, type NamespaceIndexSettings } from './namespace-indexes.js';
import { type SearchContext, search } from './search.js';

/** Documents per backlog batch when unindexed writes are found at open (the size of a large write). */
const RECOVERY_BATCH = 1000;

/** Everything an index shares with the engine that opened it. */
export interface IndexSettings extends Omit<NamespaceIndexSettings, 'vectorDimensions'> {
  embedder: Embedder;
  reranker: Reranker;
  enricher: Enricher;
  /** Documents acknowledged before they are indexed, at most (see {@link IndexingBacklog}); 0: none. */
  indexingBacklog: number;
  persistIntervalMs: number;
  onEmbed?: (seconds: number, texts: number) => void;
  /** The engine's turns for CPU-heavy search sections (one main thread for every index). */
  turns: CpuTurns;
}

/**
 * One search index on this node: a SQLite file plus one HNSW file per namespace in `dir`. It is
 * the whole index in embedded mode, and the local, disposable materialization of an index whose
 * system of record is PostgreSQL (fed through {@link apply}). Writes commit to SQLite and return;
 * with an in-process embedder they are embedded and indexed by the {@link IndexingBacklog} before
 * the next search, otherwise before they commit. The engine's HNSW worker threads move new vectors
 * into the graphs (batches of `indexingBatchSize`), and dirty graphs are written every
 * `persistIntervalMs` and on close.
 */
export class EmbeddedIndex implements IndexEngine {
  private readonly store: DocumentStore;
  private readonly indexes: NamespaceIndexes;
  private readonly searchContext: SearchContext;
  private readonly persistTimer: NodeJS.Timeout;
  private readonly embedder: IndexEmbedder;
  private readonly backlog: IndexingBacklog;
  private closing: Promise<void> | undefined;

  constructor(
    /** The index's folder (see index-files.ts). */
    readonly folder: string,
    private readonly settings: IndexSettings,
  ) {
    const dir = folder;
    this.store = new DocumentStore(databaseFile(dir));
    let unembedded: Map<number, number[]>;
    try {
      this.embedder = new IndexEmbedder(settings.embedder, this.store, basename(dir), settings.onEmbed);
      // Writes acknowledged before a crash or a stop, not yet embedded then.
      unembedded = this.store.unembedded();
    } catch (error) {
      // Now, not when collected: the failure may be for want of the descriptors the database holds.
      this.store.close();
      throw error;
    }
    this.indexes = new NamespaceIndexes(folder, this.store, {
      ...settings,
      vectorDimensions: () => this.embedder.vectorDimensions,
    });
    this.backlog = new IndexingBacklog(
      (nsId, labels) => this.indexWritten(nsId, labels),
      (error, nsId, labels, retryInMs) => {
        settings.logger[forWantOfDescriptors(error) ? 'warn' : 'error'](
          { err: error, folder, namespaceId: nsId, documents: labels.length, retryInMs },
          retryInMs === undefined
            ? 'indexing written documents failed; they are indexed when the index is next opened'
            : 'indexing written documents failed; they are tried again later',
        );
      },
      // Nothing left to find at the next open (a failed batch stays waiting until it is indexed).
      () => this.store.markAllEmbedded(),
    );
    for (const [nsId, labels] of unembedded) {
      for (let i = 0; i < labels.length; i += RECOVERY_BATCH)
        this.backlog.push(nsId, labels.slice(i, i + RECOVERY_BATCH));
    }
    this.searchContext = {
      store: this.store,
      reranker: settings.reranker,
      enricher: settings.enricher,
      embedQuery: (nsId, query) => this.embedder.embedQuery(query, this.indexes.text(nsId)),
      vectors: async (nsId) => {
        const vectors = this.indexes.vectorsOf(nsId);
        await vectors.load();
        return vectors;
      },
      text: (nsId) => this.indexes.text(nsId),
      filterMatches: (nsId, source, filter) => this.indexes.filterMatches(nsId, source, filter),
      turn: (section) => settings.turns.run(section),
    };
    this.persistTimer = setInterval(() => this.indexes.persistVectors(), settings.persistIntervalMs).unref();
  }

  async upsert(namespace: string, docs: DocumentInput[], options: UpsertOptions): Promise<void> {
    this.assertOpen();
    checkNamespace(namespace);
    if (!Number.isInteger(options.maxVectorCount)) {
      throw new AppError('invalid_request', 'maxVectorCount must be an integer');
    }
    const prepared = prepareDocuments(docs);
    if (prepared.length === 0) return;
    if (this.embedder.inProcess && this.backlog.count() < this.settings.indexingBacklog) {
      // Acknowledged once durable; embedded and indexed by the backlog, before the next search.
      const { added, removed } = this.store.writeUnembedded(namespace, prepared, options.maxVectorCount);
      const nsId = this.store.namespaceId(namespace)!;
      this.indexes.changed(nsId, { added: [], removed });
      this.backlog.push(nsId, added);
      return;
    }
    // Embedded and indexed first: a remote embedder can fail, and then nothing is stored; and past
    // the backlog's limit, so that it stops growing (versions are independent: the backlog skips
    // those replaced meanwhile, and replaced ones leave the indexes when their write commits).
    const embeddings = await this.embedDocuments(namespace, prepared);
    this.assertOpen();
    const result = this.store.write(namespace, prepared, embeddings, options.maxVectorCount);
    this.indexes.changed(this.store.namespaceId(namespace)!, result);
  }

  /** Embeds and indexes written documents (those of `labels` that were not replaced or deleted since). */
  private async indexWritten(nsId: number, labels: number[]): Promise<void> {
    const entries = documentsByLabels(this.store, labels);
    if (entries.length === 0) return;
    const text = this.indexes.text(nsId);
    // A write is all in the full-text index or not at all: it is added after this, unless the index
    // was built from SQLite since the write (then the statistics count it already).
    const vectors = await this.embedder.embedDocuments(
      entries.map((entry) => entry.doc),
      text,
      text.has(entries[0].label),
    );
    const stored = this.store.addEmbeddings(entries.map((entry, i) => ({ label: entry.label, vector: vectors[i] })));
    const added = entries.flatMap((entry, i) => (stored[i] ? [{ ...entry, vector: vectors[i] }] : []));
    this.indexes.changed(nsId, { added, removed: [] });
  }

  /** Vectors of documents about to be written to `namespace` (normalized, dimensions checked). */
  embedDocuments(namespace: string, docs: PreparedDocument[]): Promise<Float32Array[]> {
    const nsId = this.store.namespaceId(namespace);
    return this.embedder.embedDocuments(docs, nsId === undefined ? undefined : this.indexes.text(nsId));
  }

  /** The model the index's vectors come from, as recorded with them. */
  embedderIdentity(): { name: string; dimensions: number | undefined } {
    return { name: this.embedder.name, dimensions: this.embedder.vectorDimensions };
  }

  async search(namespace: string, request: SearchRequest): Promise<SearchOutcome> {
    this.assertOpen();
    await this.backlog.settled();
    this.assertOpen();
    return search(this.searchContext, namespace, request);
  }

  async fetch(namespace: string, selector: FetchSelector, options: ReadOptions): Promise<(DocumentOutput | null)[]> {
    this.assertOpen();
    const nsId = this.store.namespaceId(namespace);
    if ('ids' in selector) {
      checkIds(selector.ids);
      return nsId === undefined ? selector.ids.map(() => null) : fetchByIds(this.store, nsId, selector.ids, options);
    }
    checkPrefix(selector.prefix, true);
    checkLimit(selector.limit);
    return nsId === undefined
      ? []
      : listDocuments(this.store, nsId, { after: '', prefix: selector.prefix, limit: selector.limit }, options);
  }

  async delete(namespace: string, selector: DeleteSelector): Promise<number> {
    this.assertOpen();
    const where = deleteCondition(selector);
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) return 0;
    const removed = this.store.deleteWhere(nsId, `SELECT label FROM documents d WHERE d.ns = ? AND (${where.sql})`, [
      nsId,
      ...where.params,
    ]);
    this.indexes.changed(nsId, { added: [], removed });
    return removed.length;
  }

  /** Ids of the namespace's documents a delete with `selector` would remove (validates it the same way). */
  matchingIds(namespace: string, selector: DeleteSelector): string[] {
    this.assertOpen();
    const where = deleteCondition(selector);
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) return [];
    return this.store
      .statement(`SELECT d.id FROM documents d WHERE d.ns = ? AND (${where.sql})`)
      .pluck(true)
      .all(nsId, ...where.params) as string[];
  }

  async range(namespace: string, request: RangeRequest): Promise<RangeResult> {
    this.assertOpen();
    checkLimit(request.limit);
    if (request.prefix !== undefined) checkPrefix(request.prefix, true);
    const after = decodeCursor(request.cursor);
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) return { nextCursor: '', documents: [] };
    // One row beyond the page tells whether another page exists.
    const rows = listDocuments(
      this.store,
      nsId,
      { after, prefix: request.prefix ?? '', limit: request.limit + 1 },
      request,
    );
    const documents = rows.slice(0, request.limit);
    const more = rows.length > request.limit;
    return { nextCursor: more ? encodeCursor(documents.at(-1)!.id) : '', documents };
  }

  async reset(namespace: string): Promise<void> {
    this.assertOpen();
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) return;
    this.store.clearNamespace(nsId, false);
    await this.indexes.discard(nsId);
  }

  async deleteNamespace(namespace: string): Promise<void> {
    this.assertOpen();
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) throw new AppError('namespace_not_found', `Namespace '${namespace}' does not exist`);
    this.store.clearNamespace(nsId, true);
    await this.indexes.discard(nsId);
  }

  /**
   * Applies changes decided by the system of record (in their order, with their labels) and, when
   * given, records `watermark` as the last change applied, atomically. Replaying changes is harmless.
   */
  async apply(changes: StoreChange[], watermark?: number): Promise<void> {
    this.assertOpen();
    if (changes.length === 0 && (watermark === undefined || watermark === this.store.watermark())) return;
    const applied = this.store.apply(changes, watermark);
    for (const nsId of applied.cleared) await this.indexes.discard(nsId);
    for (const [nsId, result] of applied.byNamespace) {
      if (!applied.cleared.has(nsId)) this.indexes.changed(nsId, result);
    }
  }

  /** The last change applied by {@link apply} (0 before any). */
  watermark(): number {
    return this.store.watermark();
  }

  async info(): Promise<IndexInfo> {
    this.assertOpen();
    const namespaces: IndexInfo['namespaces'] = {};
    let vectorCount = 0;
    let pendingVectorCount = 0;
    for (const [name, nsId] of this.store.namespaces()) {
      const count = this.store.documentCount(nsId);
      // Loading reconciles the graph with SQLite, so vectors missing from its file count as pending.
      const pending = count > 0 ? (await this.searchContext.vectors(nsId)).pendingCount + this.backlog.count(nsId) : 0;
      namespaces[name] = { vectorCount: count, pendingVectorCount: pending };
      vectorCount += count;
      pendingVectorCount += pending;
    }
    return { vectorCount, pendingVectorCount, indexSize: folderSize(this.folder), namespaces };
  }

  /** Documents and vectors not yet in a graph, without touching disk. */
  counts(): { documents: number; pendingVectors: number } {
    return { documents: this.store.totalCount(), pendingVectors: this.backlog.count() + this.indexes.pendingVectors() };
  }

  async listNamespaces(): Promise<string[]> {
    this.assertOpen();
    return this.store.namespaces().map(([name]) => name);
  }

  /** Stops indexing, writes every changed HNSW graph and closes SQLite. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.persistTimer);
      // What is left of the backlog is found again in SQLite at the next open.
      await this.backlog.close();
      await this.indexes.close();
      this.store.close();
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new AppError('service_unavailable', 'The index is closing or has been dropped');
  }
}

/** The documents a delete selector names, as a condition on the documents table (alias `d`). */
function deleteCondition(selector: DeleteSelector): SqlFragment | { sql: string; params: unknown[] } {
  if ('ids' in selector) {
    checkIds(selector.ids);
    return { sql: 'd.id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(selector.ids)] };
  }
  if ('prefix' in selector) {
    checkPrefix(selector.prefix, false);
    return idPrefixCondition(selector.prefix);
  }
  return compileFilter(parseFilter(String(selector.filter)), 'd');
}
