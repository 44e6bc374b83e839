import type { EngineLogger } from '../providers/provider-types.js';
import type { HnswWorker } from './hnsw-worker-client.js';
import { partFile, removeFileParts } from './index-files.js';
import { type HnswSettings, NamespaceVectors, TIE_MARGIN, type VectorSource } from './namespace-vectors.js';
import type { VectorCode } from './vector-codes.js';
import { bestFirst, type Scored } from './vector-math.js';

/**
 * The vector side of one namespace split into segments, one HNSW graph per worker thread: a
 * document version goes to segment `label % segments`, so graphs grow evenly, insertion runs on as
 * many cores as there are workers, and a search asks every graph at once (in parallel) and merges.
 * Each segment is a {@link NamespaceVectors} over its share of the labels, with its own file.
 */
export class SegmentedVectors {
  private readonly segments: NamespaceVectors[];

  constructor(
    /** The file of a one-segment namespace, e.g. `.../vectors-3.hnsw`; segments add `.<i>-of-<n>`. */
    private readonly file: string,
    dimensions: number,
    settings: HnswSettings,
    /** Labels and vectors of the namespace, restricted by the caller to a segment. */
    source: (segment: number, segments: number) => VectorSource,
    logger: EngineLogger,
    workers: HnswWorker[],
    batchSize: number,
  ) {
    const count = workers.length;
    this.segments = workers.map(
      (worker, i) =>
        new NamespaceVectors(
          partFile(file, i, count),
          dimensions,
          settings,
          source(i, count),
          logger,
          worker,
          batchSize,
        ),
    );
  }

  get pendingCount(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.pendingCount;
    return total;
  }

  /**
   * Loads every segment. A failure is reported once every segment's load has ended, so that none
   * is still on its way to failing (for want of a descriptor, say) when the next request retries.
   */
  async load(): Promise<void> {
    const outcomes = await Promise.allSettled(this.segments.map((segment) => segment.load()));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  changed(added: { label: number; vector: VectorCode }[], removed: number[]): void {
    const count = this.segments.length;
    if (count === 1) {
      this.segments[0].changed(added, removed);
      return;
    }
    const addedBy = this.segments.map((): { label: number; vector: VectorCode }[] => []);
    const removedBy = this.segments.map((): number[] => []);
    for (const entry of added) addedBy[entry.label % count].push(entry);
    for (const label of removed) removedBy[label % count].push(label);
    this.segments.forEach((segment, i) => {
      if (addedBy[i].length > 0 || removedBy[i].length > 0) segment.changed(addedBy[i], removedBy[i]);
    });
  }

  /** Nearest neighbours over every graph (searched in parallel), best first; see NamespaceVectors.nearest. */
  async nearest(query: Float32Array, k: number, allowed?: Set<number>, wanted = k, effort = 1): Promise<Scored[]> {
    const count = this.segments.length;
    const allowedBy = allowed && count > 1 ? split(allowed, count) : undefined;
    const results = await Promise.all(
      this.segments.map((segment, i) => segment.nearest(query, k, allowedBy ? allowedBy[i] : allowed, wanted, effort)),
    );
    return results.length === 1
      ? results[0]
      : results
          .flat()
          .sort(bestFirst)
          .slice(0, k + TIE_MARGIN);
  }

  /** The exact cosine of those of `labels` the segments hold (see NamespaceVectors.scores), by label. */
  async scores(query: Float32Array, labels: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    const count = this.segments.length;
    const bySegment = this.segments.map((): number[] => []);
    for (const label of labels) bySegment[label % count].push(label);
    await Promise.all(this.segments.map((segment, i) => segment.scores(query, bySegment[i], out)));
    return out;
  }

  /** Exact top-k over every segment's pending vectors, best first. */
  nearestPending(query: Float32Array, k: number, accept?: (label: number) => boolean): Scored[] {
    if (this.segments.length === 1) return this.segments[0].nearestPending(query, k, accept);
    return this.segments
      .flatMap((segment) => segment.nearestPending(query, k, accept))
      .sort(bestFirst)
      .slice(0, k);
  }

  async persist(): Promise<void> {
    await Promise.all(this.segments.map((segment) => segment.persist()));
  }

  /** See NamespaceVectors.restart. */
  restart(): void {
    for (const segment of this.segments) segment.restart();
  }

  /** Stops all work; see NamespaceVectors.dispose. With `deleteFiles`, files of any segmentation go. */
  async dispose(deleteFiles: boolean): Promise<void> {
    await Promise.all(this.segments.map((segment) => segment.dispose(deleteFiles)));
    if (deleteFiles) await removeFileParts(this.file);
  }
}

function split(labels: Set<number>, count: number): Set<number>[] {
  const parts = Array.from({ length: count }, () => new Set<number>());
  for (const label of labels) parts[label % count].add(label);
  return parts;
}
