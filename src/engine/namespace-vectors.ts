import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import hnswlib, { type HierarchicalNSW } from 'hnswlib-node';
import { PendingVectors } from './pending-vectors.js';
import type { EngineLogger } from './provider-types.js';
import type { Scored } from './vector-math.js';

/** HNSW build/search parameters. */
export interface HnswSettings {
  m: number;
  efConstruction: number;
  efSearch: number;
}

/** The namespace's documents in SQLite, the source of truth the graph is reconciled with. */
export interface VectorSource {
  /** Labels of the namespace's documents. */
  liveLabels(): number[];
  /** Stored vectors of labels (absent when the label no longer exists). */
  vectors(labels: number[]): Map<number, Float32Array>;
}

const MIN_CAPACITY = 1024;
/**
 * Neighbours a search at `efSearch` is sized for: the candidate depth of a topK up to 50. Recall@k
 * at a fixed ef falls as k grows (100k documents of bench/data-plane.bench.js, ef 1024: recall@10
 * 0.97, recall@100 0.92), so searches for more neighbours scale ef in proportion.
 */
const EF_NEIGHBOURS = 100;
/** The proportional ef stops at this multiple of efSearch: search time grows linearly with ef. */
const EF_MAX_SCALE = 4;

/**
 * The ef (candidate list size) of a graph search asking for `k` neighbours of which the caller
 * needs the best `wanted` (fewer than `k` when post-filtering an oversampled search):
 * `efSearch` up to {@link EF_NEIGHBOURS} wanted, proportionally more beyond (at most
 * {@link EF_MAX_SCALE}·efSearch), and never less than `k`, which hnswlib requires.
 */
export function searchEf(efSearch: number, k: number, wanted = k): number {
  const scaled = Math.min(EF_MAX_SCALE * efSearch, Math.ceil((efSearch * wanted) / EF_NEIGHBOURS));
  return Math.max(efSearch, scaled, k);
}

/**
 * The vector side of one namespace: an HNSW graph (inner product over L2-normalized vectors, i.e.
 * cosine) persisted to `file`, plus the *pending* vectors committed to SQLite but not yet in the
 * graph. Searches merge HNSW results with an exact scan of the pending set, so a document is
 * searchable as soon as its upsert returns. Callers must re-check every label against SQLite:
 * deletions reach the graph lazily (and a stale file may hold old labels), but labels are never
 * reused, so a label that still exists in SQLite is always the current version.
 */
export class NamespaceVectors {
  private index: HierarchicalNSW | undefined;
  private loading: Promise<void> | undefined;
  private writing: Promise<void> | undefined;
  private readonly pending: PendingVectors;
  /** Deletions reach the graph in the next indexing slice or persist, never during a background write. */
  private readonly deletions: number[] = [];
  private dirty = false;
  private disposed = false;

  constructor(
    private readonly file: string,
    private readonly dimensions: number,
    private readonly settings: HnswSettings,
    private readonly source: VectorSource,
    private readonly logger: EngineLogger,
    /** Called when indexing work becomes possible (after a load or a write). */
    private readonly onWork: () => void,
  ) {
    this.pending = new PendingVectors(dimensions);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** True when {@link indexSome} can make progress now. */
  get hasWork(): boolean {
    return (
      this.index !== undefined &&
      !this.writing &&
      !this.disposed &&
      (this.pending.size > 0 || this.deletions.length > 0)
    );
  }

  /** Loads (once) the graph file and reconciles it with SQLite; rebuilds when missing or unreadable. */
  load(): Promise<void> {
    this.loading ??= this.readAndReconcile();
    return this.loading;
  }

  /** After a commit: new versions become pending, removed ones leave the pending set or the graph. */
  changed(added: { label: number; vector: Float32Array }[], removed: number[]): void {
    if (!this.index) return; // the reconciliation at load time will see these rows
    for (const label of removed) if (!this.pending.delete(label)) this.deletions.push(label);
    for (const { label, vector } of added) this.pending.add(label, vector);
    if (this.hasWork) this.onWork();
  }

  /**
   * Applies queued deletions and moves pending vectors into the graph: at most `limit`, and no
   * more once `deadline` (performance.now()) has passed. Returns how many were added.
   */
  indexSome(limit: number, deadline: number): number {
    const index = this.index;
    if (!index || !this.hasWork) return 0;
    this.applyDeletions(index);
    const labels = this.pending.oldest(limit);
    const needed = index.getCurrentCount() + labels.length;
    if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, Math.ceil(index.getMaxElements() * 1.5)));
    let done = 0;
    for (const label of labels) {
      if (done > 0 && performance.now() > deadline) break;
      index.addPoint(Array.from(this.pending.vector(label)!), label, true); // true: reuse a deleted element's slot
      this.pending.delete(label);
      done++;
    }
    this.dirty = true;
    return done;
  }

  /**
   * Approximate nearest neighbours from the graph (similarity = cosine), best first: `k` of them,
   * searched with the ef for `wanted` results (see {@link searchEf}).
   */
  nearest(query: number[], k: number, accept?: (label: number) => boolean, wanted = k): Scored[] {
    const index = this.index;
    const count = index?.getCurrentCount() ?? 0;
    if (!index || count === 0) return [];
    const limit = Math.min(k, count);
    index.setEf(searchEf(this.settings.efSearch, limit, Math.min(wanted, limit)));
    const { neighbors, distances } = index.searchKnn(query, limit, accept);
    return neighbors.map((label, i) => ({ label, score: 1 - distances[i] }));
  }

  /** Exact top-k over the pending vectors (those accepted), best first. */
  nearestPending(query: Float32Array, k: number, accept?: (label: number) => boolean): Scored[] {
    return this.pending.nearest(query, k, accept);
  }

  /** Writes the graph to its file when it changed (atomically: temp file + rename). */
  async persist(): Promise<void> {
    while (this.writing) await this.writing;
    const index = this.index;
    if (!index || this.disposed) return;
    this.applyDeletions(index);
    if (!this.dirty) return;
    this.dirty = false; // mutations wait while writing, so nothing can slip between write and flag
    const temp = `${this.file}.tmp`;
    this.writing = (async () => {
      try {
        await index.writeIndex(temp);
        await rename(temp, this.file);
      } catch (error) {
        this.dirty = true;
        this.logger.error({ err: error, file: this.file }, 'writing the vector index failed');
      } finally {
        this.writing = undefined;
        if (this.hasWork) this.onWork();
      }
    })();
    await this.writing;
  }

  /** Stops all work after in-flight loads and writes; with `deleteFiles` also removes the graph file. */
  async dispose(deleteFiles: boolean): Promise<void> {
    this.disposed = true;
    await this.loading?.catch(() => undefined);
    await this.writing;
    this.index = undefined;
    this.pending.clear();
    if (deleteFiles) await Promise.all([rm(this.file, { force: true }), rm(`${this.file}.tmp`, { force: true })]);
  }

  private applyDeletions(index: HierarchicalNSW): void {
    if (this.deletions.length === 0) return;
    for (const label of this.deletions.splice(0)) markDeleted(index, label);
    this.dirty = true;
  }

  private async readAndReconcile(): Promise<void> {
    let index: HierarchicalNSW | undefined;
    if (existsSync(this.file)) {
      try {
        index = new hnswlib.HierarchicalNSW('ip', this.dimensions);
        await index.readIndex(this.file, true);
      } catch (error) {
        this.logger.warn({ err: error, file: this.file }, 'vector index file unreadable; rebuilding from SQLite');
        index = undefined;
      }
    }
    if (this.disposed) return;
    // From here on everything is synchronous: no commit can interleave, so after this block every
    // committed row is either in the graph or pending, and later commits go through changed().
    const fileLabels = new Set(index?.getIdsList() ?? []);
    const live = this.source.liveLabels();
    const rebuilt = !index;
    if (!index) {
      index = new hnswlib.HierarchicalNSW('ip', this.dimensions);
      index.initIndex({
        maxElements: Math.max(MIN_CAPACITY, Math.ceil(live.length * 1.2)),
        m: this.settings.m,
        efConstruction: this.settings.efConstruction,
        randomSeed: 42,
        allowReplaceDeleted: true,
      });
    }
    const liveSet = new Set(live);
    const missing = live.filter((label) => !fileLabels.has(label));
    for (const [label, vector] of this.source.vectors(missing)) this.pending.add(label, vector);
    let stale = 0;
    for (const label of fileLabels) {
      if (!liveSet.has(label) && markDeleted(index, label)) stale++;
    }
    this.index = index;
    this.dirty = stale > 0 || rebuilt;
    if (fileLabels.size > 0 && (missing.length > 0 || stale > 0)) {
      this.logger.info({ file: this.file, pending: missing.length, stale }, 'vector index reconciled with SQLite');
    }
    if (this.hasWork) this.onWork();
  }
}

/** markDelete that tolerates labels already deleted or replaced; returns whether it deleted. */
function markDeleted(index: HierarchicalNSW, label: number): boolean {
  try {
    index.markDelete(label);
    return true;
  } catch {
    return false;
  }
}
