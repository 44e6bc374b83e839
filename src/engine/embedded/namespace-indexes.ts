import { forWantOfDescriptors } from '../../errors.js';
import type { EngineLogger } from '../providers/provider-types.js';
import type { DocumentStore, EmbeddedDocument } from './document-store.js';
import { FilterMatches } from './filter-matches.js';
import type { SqlFragment } from './filter-sql.js';
import type { HnswWorker } from './hnsw-worker-client.js';
import { idleCollection } from './idle-collection.js';
import { removeFileParts, vectorFile } from './index-files.js';
import type { HnswSettings } from './namespace-vectors.js';
import { SegmentedVectors } from './segmented-vectors.js';
import { NamespaceTexts } from './text-shards/namespace-texts.js';
import type { ShardedText } from './text-shards/sharded-text.js';
import type { TextShards } from './text-shards/text-shards.js';
import type { VectorCode } from './vector-codes.js';

export interface NamespaceIndexSettings {
  logger: EngineLogger;
  hnsw: HnswSettings;
  /** The engine's HNSW worker threads; each namespace keeps one graph segment in each. */
  hnswWorkers: HnswWorker[];
  indexingBatchSize: number;
  /** The engine's text shard threads; each namespace keeps one full-text shard in each. */
  textShards: TextShards;
}

/** A committed document version: its label and, once made, its vector. */
export interface CommittedDocument {
  label: number;
  vector?: VectorCode;
}

/** What one index's namespace indexes need from it. */
export interface IndexParts {
  /** The dimensions of the index's vectors (known once its embedder has embedded something). */
  vectorDimensions(): number | undefined;
  /** The lexical embedder the text shards make vectors with, when the index's embedder is one. */
  shardEmbedder: string | undefined;
  /** Hears how long the shards took to embed documents (metrics). */
  onEmbed?(seconds: number, texts: number): void;
}

/**
 * The in-memory indexes of one index's namespaces, derived from its SQLite store: full-text
 * indexes (split over the text shard threads, which also embed documents written without a
 * vector), cached filter matches and vector graphs, each built on first use and kept current with
 * every commit after that.
 */
export class NamespaceIndexes {
  private readonly vectors = new Map<number, SegmentedVectors>();
  private readonly texts: NamespaceTexts;
  private readonly filters: FilterMatches;

  constructor(
    private readonly folder: string,
    private readonly store: DocumentStore,
    private readonly settings: NamespaceIndexSettings,
    private readonly parts: IndexParts,
  ) {
    this.texts = new NamespaceTexts(folder, store, settings.textShards, settings.logger, {
      embedder: parts.shardEmbedder,
      embedded: (nsId, docs, seconds) => this.embedded(nsId, docs, seconds),
    });
    this.filters = new FilterMatches(store);
  }

  /** The namespace's full-text index, once every committed document has been sent to it. */
  text(nsId: number): Promise<ShardedText> {
    return this.texts.ready(nsId);
  }

  /** Labels of the namespace's documents matching a filter (keyed by its source text). */
  filterMatches(nsId: number, source: string, filter: SqlFragment): Set<number> {
    return this.filters.get(nsId, source, filter);
  }

  /** The namespace's vectors; their graphs start loading (and reconciling with SQLite) at first use. */
  vectorsOf(nsId: number): SegmentedVectors {
    let vectors = this.vectors.get(nsId);
    if (!vectors) {
      const source = (segment: number, segments: number) => ({
        liveLabels: () =>
          this.store.labels('SELECT label FROM documents WHERE ns = ? AND label % ? = ?', nsId, segments, segment),
        vectors: (labels: number[]) => this.store.vectorCodes(labels),
      });
      const file = vectorFile(this.folder, nsId);
      vectors = new SegmentedVectors(
        file,
        this.parts.vectorDimensions()!,
        this.settings.hnsw,
        source,
        this.settings.logger,
        this.settings.hnswWorkers,
        this.settings.indexingBatchSize,
      );
      this.vectors.set(nsId, vectors);
      vectors
        .load()
        .catch((error) =>
          this.settings.logger[forWantOfDescriptors(error) ? 'warn' : 'error'](
            { err: error, file },
            'loading vectors failed',
          ),
        );
    }
    return vectors;
  }

  /** Documents without a vector yet or whose vector is not in a graph yet, in one namespace or in all. */
  pendingVectors(nsId?: number): number {
    if (nsId !== undefined) return (this.vectors.get(nsId)?.pendingCount ?? 0) + this.texts.embedding(nsId);
    let pending = this.texts.embedding();
    for (const vectors of this.vectors.values()) pending += vectors.pendingCount;
    return pending;
  }

  /** Marks the namespace's full-text index to be built again at its next use (a shard of it died). */
  lose(nsId: number): void {
    this.texts.lose(nsId);
  }

  /** Documents sent to the shards to be embedded whose vectors have not come back. */
  embedding(): number {
    return this.texts.embedding();
  }

  /** Documents sent to the shards that they have not indexed yet. */
  inFlight(): number {
    return this.texts.inFlight();
  }

  /** Vectors of documents not written yet, made by the text shards (with the namespace's statistics if it exists). */
  async embedUnwritten(nsId: number | undefined, fields: string[][]): Promise<Float32Array[]> {
    const { vectors, seconds } = await this.texts.embedUnwritten(nsId, fields);
    this.parts.onEmbed?.(seconds, fields.length);
    return vectors;
  }

  /** Writes the changed graphs now (on a timer; the close writes them too). */
  persistVectors(): void {
    for (const vectors of this.vectors.values()) void vectors.persist();
  }

  /**
   * Brings the indexes up to a commit: `removed` versions leave them, `added` ones enter the
   * full-text and filter indexes now and the vector graphs with their vectors; with `embed`, the
   * added ones have none yet and the text shards make them (they reach the graphs when they come
   * back). Resolves when the shards have indexed the documents. The commit stands whatever happens
   * here, so an index that fails to follow is dropped and built again from SQLite at its next use,
   * and the write goes on: failing it would leave the write stored, and the stale index hiding it
   * until the index reopens.
   */
  changed(nsId: number, added: CommittedDocument[], removed: number[], embed = false): Promise<void> {
    idleCollection.note(added.length + removed.length);
    this.texts.remove(nsId, removed);
    const indexing = this.texts.add(
      nsId,
      added.map(({ label }) => label),
      embed,
    );
    this.follow(
      'filter matches',
      nsId,
      () =>
        this.filters.changed(
          nsId,
          added.map((entry) => entry.label),
          removed,
        ),
      () => this.filters.forget(nsId),
    );
    const withVectors = embed ? [] : (added as { label: number; vector: VectorCode }[]);
    if (withVectors.length > 0 || (removed.length > 0 && this.vectors.has(nsId))) {
      this.follow(
        'vector graphs',
        nsId,
        () => this.vectorsOf(nsId).changed(withVectors, removed),
        () => this.vectors.get(nsId)?.restart(),
      );
    }
    return indexing;
  }

  /** Vectors the shards made for written documents: stored, then handed to the graphs. */
  private embedded(nsId: number, docs: EmbeddedDocument[], seconds: number): void {
    this.parts.onEmbed?.(seconds, docs.length);
    let stored: boolean[];
    try {
      stored = this.store.addEmbeddings(nsId, docs);
    } catch (error) {
      // Left without a vector in SQLite, they are embedded again when the namespace is rebuilt.
      this.texts.lose(nsId);
      this.settings.logger[forWantOfDescriptors(error) ? 'warn' : 'error'](
        { err: error, folder: this.folder, nsId, documents: docs.length },
        'storing document vectors failed; they are made again when the namespace is rebuilt',
      );
      return;
    }
    const added = docs.filter((_, i) => stored[i]);
    if (added.length > 0) {
      this.follow(
        'vector graphs',
        nsId,
        () => this.vectorsOf(nsId).changed(added, []),
        () => this.vectors.get(nsId)?.restart(),
      );
    }
    if (this.texts.embedding() === 0 && !this.texts.anyLost()) this.store.markAllEmbedded();
  }

  /**
   * Drops a cleared namespace's indexes, from memory and then their files. A file that cannot be
   * removed is logged and left: failing the write would not bring it back, the commit stands. After
   * a reset it is reconciled with SQLite by label when read, which is exact as long as labels are
   * never reused (a PostgreSQL node rebuilding from a record behind its copy does reuse them); after
   * a deleted namespace nothing reads it again and it stays until removed by hand.
   */
  async discard(nsId: number): Promise<void> {
    this.filters.forget(nsId);
    const vectors = this.vectors.get(nsId);
    this.vectors.delete(nsId);
    const removals = await Promise.allSettled([
      this.texts.forget(nsId),
      vectors ? vectors.dispose(true) : removeFileParts(vectorFile(this.folder, nsId)),
    ]);
    for (const removal of removals) {
      if (removal.status === 'rejected') {
        this.settings.logger.error(
          { err: removal.reason, folder: this.folder, nsId },
          "removing a cleared namespace's index files failed",
        );
      }
    }
  }

  /**
   * Waits for the text shards' work under way (vectors they make still reach the graphs), then
   * writes every changed graph and full-text snapshot; failures are logged, so this always completes.
   */
  async close(): Promise<void> {
    await this.texts.settled();
    await Promise.all([...[...this.vectors.values()].map((vectors) => vectors.dispose(false)), this.texts.close()]);
  }

  private follow(what: string, nsId: number, update: () => void, drop: () => void): void {
    try {
      update();
    } catch (error) {
      drop();
      this.settings.logger[forWantOfDescriptors(error) ? 'warn' : 'error'](
        { err: error, folder: this.folder, nsId },
        `updating the ${what} after a commit failed; it will be rebuilt`,
      );
    }
  }
}
