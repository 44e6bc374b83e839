import { basename } from 'node:path';
import { AppError, errors, forWantOfDescriptors } from '../../errors.js';
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
import { fetchByIds, idPrefixCondition, listDocuments } from './document-reads.js';
import { DocumentStore, type StoreChange } from './document-store.js';
import { compileFilter, type SqlFragment } from './filter-sql.js';
import { IndexEmbedder } from './index-embedder.js';
import { databaseFile, folderSize } from './index-files.js';
import { NamespaceIndexes, type NamespaceIndexSettings } from './namespace-indexes.js';
import { LostShardError, type SearchContext, search } from './search.js';
import { WorkerExitedError } from './worker-client.js';

/** Documents on their way to the text shards past which applying changes waits for them. */
const APPLY_IN_FLIGHT = 20_000;

/** Everything an index shares with the engine that opened it. */
export interface IndexSettings extends NamespaceIndexSettings {
  embedder: Embedder;
  reranker: Reranker;
  enricher: Enricher;
  /**
   * Documents whose vectors the text shards may still be making when a write is acknowledged; past
   * that, a write waits for its own to be made (0: always).
   */
  indexingBacklog: number;
  persistIntervalMs: number;
  onEmbed?: (seconds: number, texts: number) => void;
  /** The engine's turns for CPU-heavy search sections (one main thread for every index). */
  turns: CpuTurns;
}

/**
 * One search index on this node: a SQLite file plus, per namespace, full-text snapshot and HNSW
 * files in `dir`. It is the whole index in embedded mode, and the local, disposable
 * materialization of an index whose system of record is PostgreSQL (fed through {@link apply}).
 * Writes commit to SQLite and are sent to the text shard threads in commit order, so every search
 * after the acknowledgement sees them; with a lexical embedder the shards also make the vectors,
 * after the write is acknowledged (up to `indexingBacklog` documents), otherwise the vectors are
 * made before the write commits. The engine's HNSW worker threads move new vectors into the graphs
 * (batches of `indexingBatchSize`), and dirty graphs are written every `persistIntervalMs` and on
 * close.
 */
export class EmbeddedIndex implements IndexEngine {
  private readonly store: DocumentStore;
  private readonly indexes: NamespaceIndexes;
  private readonly searchContext: SearchContext;
  private readonly persistTimer: NodeJS.Timeout;
  private readonly embedder: IndexEmbedder;
  private closing: Promise<void> | undefined;

  constructor(
    /** The index's folder (see index-files.ts). */
    readonly folder: string,
    private readonly settings: IndexSettings,
  ) {
    this.store = new DocumentStore(databaseFile(folder));
    try {
      this.embedder = new IndexEmbedder(settings.embedder, this.store, basename(folder), settings.onEmbed);
    } catch (error) {
      // Now, not when collected: the failure may be for want of the descriptors the database holds.
      this.store.close();
      throw error;
    }
    this.indexes = new NamespaceIndexes(folder, this.store, settings, {
      vectorDimensions: () => this.embedder.vectorDimensions,
      shardEmbedder: this.embedder.shardEmbedder,
      onEmbed: settings.onEmbed,
    });
    // Writes acknowledged before a crash or a stop, not yet embedded then: their namespaces are
    // built now, which has them embedded.
    for (const nsId of this.store.unembedded().keys()) void this.indexes.text(nsId).catch(() => undefined);
    this.searchContext = {
      store: this.store,
      reranker: settings.reranker,
      enricher: settings.enricher,
      text: (nsId) => this.indexes.text(nsId),
      shardEmbedder: this.embedder.shardEmbedder,
      embedQuery: (query) => this.embedder.embedQuery(query),
      vectors: async (nsId) => {
        const vectors = this.indexes.vectorsOf(nsId);
        await vectors.load();
        return vectors;
      },
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
    if (this.embedder.shardEmbedder) {
      // Acknowledged once durable and sent to the text shards; they make the vectors.
      const { added, removed } = this.store.writeUnembedded(namespace, prepared, options.maxVectorCount);
      const nsId = this.store.namespaceId(namespace)!;
      const committed = added.map((label) => ({ label }));
      const indexing = this.indexes.changed(nsId, committed, removed, true);
      // Past the backlog's limit a write waits for its own vectors, so that the backlog stops growing.
      if (this.indexes.embedding() > this.settings.indexingBacklog) await indexing;
      return;
    }
    // Embedded first: a remote embedder can fail, and then nothing is stored.
    const embeddings = await this.embedDocuments(namespace, prepared);
    this.assertOpen();
    const result = this.store.write(namespace, prepared, embeddings, options.maxVectorCount);
    const committed = result.added.map(({ label, vector }) => ({ label, vector }));
    void this.indexes.changed(this.store.namespaceId(namespace)!, committed, result.removed);
  }

  /** Vectors of documents about to be written to `namespace` (normalized, dimensions checked). */
  embedDocuments(namespace: string, docs: PreparedDocument[]): Promise<Float32Array[]> {
    if (!this.embedder.shardEmbedder) return this.embedder.embedDocuments(docs);
    return this.indexes.embedUnwritten(
      this.store.namespaceId(namespace),
      docs.map((doc) => doc.fields),
    );
  }

  /** The model the index's vectors come from, as recorded with them. */
  embedderIdentity(): { name: string; dimensions: number | undefined } {
    return { name: this.embedder.name, dimensions: this.embedder.vectorDimensions };
  }

  async search(namespace: string, request: SearchRequest): Promise<SearchOutcome> {
    this.assertOpen();
    try {
      return await search(this.searchContext, namespace, request);
    } catch (error) {
      if (!lostShard(error)) throw error;
      // A text shard died under the search, or lost a write before it: the namespace is built
      // again from SQLite, and the search runs again on it (not when file descriptors ran out:
      // the rebuild would need more of them). Twice in a row is a 503.
      const nsId = this.store.namespaceId(namespace);
      if (nsId !== undefined) this.indexes.lose(nsId);
      this.assertOpen();
      try {
        if (forWantOfDescriptors(error.cause)) throw error;
        return await search(this.searchContext, namespace, request);
      } catch (again) {
        if (!lostShard(again)) throw again;
        if (forWantOfDescriptors(again.cause)) throw errors.outOfDescriptors(again.cause);
        throw errors.retrySoon('The full-text index of the namespace is being rebuilt; try again in a moment', again);
      }
    }
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
    void this.indexes.changed(nsId, [], removed);
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
    const indexing: Promise<void>[] = [];
    for (const [nsId, { added, removed }] of applied.byNamespace) {
      if (applied.cleared.has(nsId)) continue;
      const committed = added.map(({ label, vector }) => ({ label, vector }));
      indexing.push(this.indexes.changed(nsId, committed, removed));
    }
    // A node catching up reads changes faster than the shards index them: past the bound, it
    // waits for these, so the documents on their way to the shards stay a bounded amount of text.
    if (this.indexes.inFlight() > APPLY_IN_FLIGHT) await Promise.all(indexing);
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
      if (count > 0) await this.searchContext.vectors(nsId);
      const pending = count > 0 ? this.indexes.pendingVectors(nsId) : 0;
      namespaces[name] = { vectorCount: count, pendingVectorCount: pending };
      vectorCount += count;
      pendingVectorCount += pending;
    }
    return { vectorCount, pendingVectorCount, indexSize: folderSize(this.folder), namespaces };
  }

  /** Documents and vectors not yet in a graph, without touching disk. */
  counts(): { documents: number; pendingVectors: number } {
    return { documents: this.store.totalCount(), pendingVectors: this.indexes.pendingVectors() };
  }

  async listNamespaces(): Promise<string[]> {
    this.assertOpen();
    return this.store.namespaces().map(([name]) => name);
  }

  /** Waits for the shards' work under way, writes every changed HNSW graph and full-text snapshot, closes SQLite. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.persistTimer);
      await this.indexes.close();
      this.store.close();
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new AppError('service_unavailable', 'The index is closing or has been dropped');
  }
}

/** Whether a search failed because a text shard lost part of its namespace (see ShardedText.lost). */
function lostShard(error: unknown): error is WorkerExitedError | LostShardError {
  return error instanceof WorkerExitedError || error instanceof LostShardError;
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
