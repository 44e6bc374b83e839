import { forWantOfDescriptors } from '../../errors.js';
import type { EngineLogger } from '../providers/provider-types.js';
import { vectorsByLabels } from './document-reads.js';
import type { DocumentStore, WriteResult } from './document-store.js';
import { FilterMatches } from './filter-matches.js';
import type { SqlFragment } from './filter-sql.js';
import type { FullTextIndex } from './full-text/full-text-index.js';
import { NamespaceTexts } from './full-text/namespace-texts.js';
import type { HnswWorker } from './hnsw-worker-client.js';
import { idleCollection } from './idle-collection.js';
import { vectorFile } from './index-files.js';
import type { HnswSettings } from './namespace-vectors.js';
import { removeVectorFiles, SegmentedVectors } from './segmented-vectors.js';

export interface NamespaceIndexSettings {
  logger: EngineLogger;
  hnsw: HnswSettings;
  /** The engine's HNSW worker threads; each namespace keeps one graph segment in each. */
  hnswWorkers: HnswWorker[];
  indexingBatchSize: number;
  /** The dimensions of the index's vectors (known once its embedder has embedded something). */
  vectorDimensions: () => number | undefined;
}

/**
 * The in-memory indexes of one index's namespaces, derived from its SQLite store: full-text
 * indexes, cached filter matches and vector graphs, each built on first use and kept current with
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
  ) {
    this.texts = new NamespaceTexts(folder, store, settings.logger);
    this.filters = new FilterMatches(store);
  }

  /** The namespace's full-text index, built now if it was not yet. */
  text(nsId: number): FullTextIndex {
    return this.texts.of(nsId);
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
        vectors: (labels: number[]) => vectorsByLabels(this.store, labels),
      });
      const file = vectorFile(this.folder, nsId);
      vectors = new SegmentedVectors(
        file,
        this.settings.vectorDimensions()!,
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

  /** Vectors not yet in a graph, over the namespaces loaded. */
  pendingVectors(): number {
    let pending = 0;
    for (const vectors of this.vectors.values()) pending += vectors.pendingCount;
    return pending;
  }

  /** Writes the changed graphs now (on a timer; the close writes them too). */
  persistVectors(): void {
    for (const vectors of this.vectors.values()) void vectors.persist();
  }

  /**
   * Brings the indexes up to a commit. The commit stands whatever happens here, so one that fails
   * to follow is dropped and built again from SQLite at its next use, and the write goes on:
   * failing it would leave the write stored, and the stale index hiding it until the index reopens.
   */
  changed(nsId: number, { added, removed }: WriteResult): void {
    idleCollection.note(added.length + removed.length);
    this.follow(
      'full-text index',
      nsId,
      () => this.texts.update(nsId, added, removed),
      () => this.texts.drop(nsId),
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
    if (added.length === 0 && !this.vectors.has(nsId)) return;
    this.follow(
      'vector graphs',
      nsId,
      () => this.vectorsOf(nsId).changed(added, removed),
      () => this.vectors.get(nsId)?.restart(),
    );
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
      vectors ? vectors.dispose(true) : removeVectorFiles(vectorFile(this.folder, nsId)),
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

  /** Writes every changed graph and full-text snapshot; failures are logged, so this always completes. */
  async close(): Promise<void> {
    await Promise.all([...[...this.vectors.values()].map((vectors) => vectors.dispose(false)), this.texts.persist()]);
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
