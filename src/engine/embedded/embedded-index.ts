import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError } from '../../errors.js';
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
import type { Embedder, EngineLogger, Enricher, Reranker } from '../providers/provider-types.js';
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
import { documentAnalyses, fetchByIds, idPrefixCondition, listDocuments, vectorsByLabels } from './document-reads.js';
import { DocumentStore, type StoreChange, type WriteResult } from './document-store.js';
import { FilterMatches } from './filter-matches.js';
import { compileFilter, type SqlFragment } from './filter-sql.js';
import { FullTextIndex } from './full-text/full-text-index.js';
import { readFullTextSnapshot, writeFullTextSnapshot } from './full-text/full-text-snapshot.js';
import type { HnswWorker } from './hnsw-worker-client.js';
import { idleCollection } from './idle-collection.js';
import { IndexEmbedder } from './index-embedder.js';
import { databaseFile, folderSize, fullTextFile, vectorFile } from './index-files.js';
import type { HnswSettings } from './namespace-vectors.js';
import { type SearchContext, search } from './search.js';
import { removeVectorFiles, SegmentedVectors } from './segmented-vectors.js';

/**
 * Namespaces smaller than this get no full-text snapshot file: rebuilding them from SQLite takes
 * well under a second.
 */
const SNAPSHOT_MIN_DOCUMENTS = 5000;

/** Everything an index shares with the engine that opened it. */
export interface IndexSettings {
  embedder: Embedder;
  reranker: Reranker;
  enricher: Enricher;
  logger: EngineLogger;
  hnsw: HnswSettings;
  /** The engine's HNSW worker threads; each namespace keeps one graph segment in each. */
  hnswWorkers: HnswWorker[];
  indexingBatchSize: number;
  persistIntervalMs: number;
  onEmbed?: (seconds: number, texts: number) => void;
  /** The engine's turns for CPU-heavy search sections (one main thread for every index). */
  turns: CpuTurns;
}

/**
 * One search index on this node: a SQLite file plus one HNSW file per namespace in `dir`. It is
 * the whole index in embedded mode, and the local, disposable materialization of an index whose
 * system of record is PostgreSQL (fed through {@link apply}). Writes commit to SQLite and return;
 * the engine's HNSW worker thread moves new vectors into the graphs (batches of
 * `indexingBatchSize`), and dirty graphs are written every `persistIntervalMs` and on close.
 */
export class EmbeddedIndex implements IndexEngine {
  private readonly store: DocumentStore;
  private readonly vectors = new Map<number, SegmentedVectors>();
  /** Full-text indexes of the namespaces searched so far (built from SQLite on first use). */
  private readonly texts = new Map<number, FullTextIndex>();
  /** Namespaces whose full-text index changed since its snapshot file was written (or read). */
  private readonly textsChanged = new Set<number>();
  private readonly filterMatches: FilterMatches;
  private readonly searchContext: SearchContext;
  private readonly persistTimer: NodeJS.Timeout;
  private readonly embedder: IndexEmbedder;
  private closing: Promise<void> | undefined;

  constructor(
    /** The index's folder (see index-files.ts). */
    readonly folder: string,
    private readonly settings: IndexSettings,
  ) {
    const dir = folder;
    this.store = new DocumentStore(databaseFile(dir));
    try {
      this.embedder = new IndexEmbedder(settings.embedder, this.store, basename(dir), settings.onEmbed);
    } catch (error) {
      this.store.close();
      throw error;
    }
    this.filterMatches = new FilterMatches(this.store);
    this.searchContext = {
      store: this.store,
      reranker: settings.reranker,
      enricher: settings.enricher,
      embedQuery: (nsId, query) => this.embedder.embedQuery(query, this.textOf(nsId)),
      vectors: async (nsId) => {
        const vectors = this.vectorsOf(nsId);
        await vectors.load();
        return vectors;
      },
      text: (nsId) => this.textOf(nsId),
      filterMatches: (nsId, source, filter) => this.filterMatches.get(nsId, source, filter),
      turn: (section) => settings.turns.run(section),
    };
    this.persistTimer = setInterval(() => {
      for (const vectors of this.vectors.values()) void vectors.persist();
    }, settings.persistIntervalMs).unref();
  }

  async upsert(namespace: string, docs: DocumentInput[], options: UpsertOptions): Promise<void> {
    this.assertOpen();
    checkNamespace(namespace);
    if (!Number.isInteger(options.maxVectorCount)) {
      throw new AppError('invalid_request', 'maxVectorCount must be an integer');
    }
    const prepared = prepareDocuments(docs);
    if (prepared.length === 0) return;
    const embeddings = await this.embedDocuments(namespace, prepared);
    this.assertOpen();
    const result = this.store.write(namespace, prepared, embeddings, options.maxVectorCount);
    this.changed(this.store.namespaceId(namespace)!, result);
  }

  /** Vectors of documents about to be written to `namespace` (normalized, dimensions checked). */
  embedDocuments(namespace: string, docs: PreparedDocument[]): Promise<Float32Array[]> {
    const nsId = this.store.namespaceId(namespace);
    return this.embedder.embedDocuments(docs, nsId === undefined ? undefined : this.textOf(nsId));
  }

  /** The model the index's vectors come from, as recorded with them. */
  embedderIdentity(): { name: string; dimensions: number | undefined } {
    return { name: this.embedder.name, dimensions: this.embedder.vectorDimensions };
  }

  async search(namespace: string, request: SearchRequest): Promise<SearchOutcome> {
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
    this.changed(nsId, { added: [], removed });
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
    await this.discardVectors(nsId);
  }

  async deleteNamespace(namespace: string): Promise<void> {
    this.assertOpen();
    const nsId = this.store.namespaceId(namespace);
    if (nsId === undefined) throw new AppError('namespace_not_found', `Namespace '${namespace}' does not exist`);
    this.store.clearNamespace(nsId, true);
    await this.discardVectors(nsId);
  }

  /**
   * Applies changes decided by the system of record (in their order, with their labels) and, when
   * given, records `watermark` as the last change applied, atomically. Replaying changes is harmless.
   */
  async apply(changes: StoreChange[], watermark?: number): Promise<void> {
    this.assertOpen();
    if (changes.length === 0 && (watermark === undefined || watermark === this.store.watermark())) return;
    const applied = this.store.apply(changes, watermark);
    for (const nsId of applied.cleared) await this.discardVectors(nsId);
    for (const [nsId, result] of applied.byNamespace) {
      if (!applied.cleared.has(nsId)) this.changed(nsId, result);
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
      const pending = count > 0 ? (await this.searchContext.vectors(nsId)).pendingCount : 0;
      namespaces[name] = { vectorCount: count, pendingVectorCount: pending };
      vectorCount += count;
      pendingVectorCount += pending;
    }
    return { vectorCount, pendingVectorCount, indexSize: folderSize(this.folder), namespaces };
  }

  /** Documents and vectors not yet in a graph, without touching disk. */
  counts(): { documents: number; pendingVectors: number } {
    let pendingVectors = 0;
    for (const vectors of this.vectors.values()) pendingVectors += vectors.pendingCount;
    return { documents: this.store.totalCount(), pendingVectors };
  }

  async listNamespaces(): Promise<string[]> {
    this.assertOpen();
    return this.store.namespaces().map(([name]) => name);
  }

  /** Stops indexing, writes every changed HNSW graph and closes SQLite. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.persistTimer);
      // dispose(false) writes the graph; failures are logged there, so closing always completes.
      await Promise.all([
        ...[...this.vectors.values()].map((vectors) => vectors.dispose(false)),
        ...[...this.textsChanged].map((nsId) => this.writeTextSnapshot(nsId)),
      ]);
      this.store.close();
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new AppError('service_unavailable', 'The index is closing or has been dropped');
  }

  private vectorsOf(nsId: number): SegmentedVectors {
    let vectors = this.vectors.get(nsId);
    if (!vectors) {
      const source = (segment: number, segments: number) => ({
        liveLabels: () =>
          this.store.labels('SELECT label FROM documents WHERE ns = ? AND label % ? = ?', nsId, segments, segment),
        vectors: (labels: number[]) => vectorsByLabels(this.store, labels),
      });
      const file = vectorFile(this.folder, nsId);
      vectors = new SegmentedVectors(
        file,
        this.embedder.vectorDimensions!,
        this.settings.hnsw,
        source,
        this.settings.logger,
        this.settings.hnswWorkers,
        this.settings.indexingBatchSize,
      );
      this.vectors.set(nsId, vectors);
      vectors.load().catch((error) => this.settings.logger.error({ err: error, file }, 'loading vectors failed'));
    }
    return vectors;
  }

  /**
   * The namespace's full-text index, kept current with every write once built. Built on first use
   * from its snapshot file reconciled with SQLite (documents written since are added, documents
   * deleted since are removed), or from SQLite alone when there is no usable snapshot.
   */
  private textOf(nsId: number): FullTextIndex {
    let text = this.texts.get(nsId);
    if (text) return text;
    const state = readFullTextSnapshot(fullTextFile(this.folder, nsId));
    text = state ? FullTextIndex.fromState(state) : new FullTextIndex();
    const indexed = text.labelSet();
    const missing: number[] = [];
    for (const label of this.store.labels('SELECT label FROM documents WHERE ns = ?', nsId)) {
      if (!indexed.delete(label)) missing.push(label);
    }
    for (const label of indexed) text.remove(label); // deleted after the snapshot was written
    for (const { label, analysis } of documentAnalyses(this.store, nsId, state ? missing : undefined)) {
      text.add(label, analysis);
    }
    this.texts.set(nsId, text);
    if (!state || missing.length > 0 || indexed.size > 0) this.textsChanged.add(nsId);
    return text;
  }

  /** Writes the namespace's full-text snapshot, when it is worth one; failures only cost a rebuild. */
  private async writeTextSnapshot(nsId: number): Promise<void> {
    const text = this.texts.get(nsId);
    this.textsChanged.delete(nsId);
    if (!text || text.size < SNAPSHOT_MIN_DOCUMENTS) return;
    const file = fullTextFile(this.folder, nsId);
    try {
      await writeFullTextSnapshot(file, text.toState());
    } catch (error) {
      this.settings.logger.warn({ err: error, file }, 'writing the full-text snapshot failed; it will be rebuilt');
    }
  }

  private changed(nsId: number, { added, removed }: WriteResult): void {
    idleCollection.note(added.length + removed.length);
    const text = this.texts.get(nsId);
    if (text) {
      for (const label of removed) text.remove(label);
      for (const { label, doc } of added) text.add(label, doc.analysis);
      this.textsChanged.add(nsId);
    }
    this.filterMatches.changed(
      nsId,
      added.map((entry) => entry.label),
      removed,
    );
    if (added.length > 0 || this.vectors.has(nsId)) this.vectorsOf(nsId).changed(added, removed);
  }

  private async discardVectors(nsId: number): Promise<void> {
    this.texts.delete(nsId);
    this.textsChanged.delete(nsId);
    await rm(fullTextFile(this.folder, nsId), { force: true });
    this.filterMatches.forget(nsId);
    const vectors = this.vectors.get(nsId);
    this.vectors.delete(nsId);
    if (vectors) await vectors.dispose(true);
    else await removeVectorFiles(vectorFile(this.folder, nsId));
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
