import type { EngineLogger } from '../providers/provider-types.js';
import { removeReplacedFile } from './durable-file.js';
import type { HnswWorker } from './hnsw-worker-client.js';
import { PendingVectors } from './pending-vectors.js';
import type { VectorCode } from './vector-codes.js';
import { bestFirst, type Scored } from './vector-math.js';

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
  vectors(labels: number[]): Map<number, VectorCode>;
}

/** Insertion batches handed to the worker and not yet acknowledged, at most. */
const BATCHES_IN_FLIGHT = 4;
/** After the worker died, a namespace reloads its graph this much later (bounds restart loops). */
const RELOAD_DELAY_MS = 1000;
/**
 * Neighbours a search at `efSearch` is sized for: the candidate depth of a topK up to 50. Recall@k
 * at a fixed ef falls as k grows, so searches for more neighbours scale ef in proportion.
 */
const EF_NEIGHBOURS = 100;
/** The proportional ef stops at this multiple of efSearch: search time grows linearly with ef. */
const EF_MAX_SCALE = 4;
/** Extra neighbours asked of the graph so that ties at the k-th place resolve the same on every node. */
export const TIE_MARGIN = 16;

/**
 * The ef (candidate list size) of a graph search asking for `k` neighbours of which the caller
 * needs the best `wanted` (fewer than `k` when post-filtering an oversampled search):
 * `efSearch` up to {@link EF_NEIGHBOURS} wanted, proportionally more beyond (at most
 * {@link EF_MAX_SCALE}·efSearch), and never less than `k`, which hnswlib requires. `effort` (0..1]
 * takes that share of efSearch as the base, for searches that need fewer of the true neighbours.
 */
export function searchEf(configured: number, k: number, wanted = k, effort = 1): number {
  const efSearch = Math.max(1, Math.round(configured * effort));
  const scaled = Math.min(EF_MAX_SCALE * efSearch, Math.ceil((efSearch * wanted) / EF_NEIGHBOURS));
  return Math.max(efSearch, scaled, k);
}

/**
 * The vector side of one namespace: an HNSW graph (inner product over L2-normalized vectors, i.e.
 * cosine) persisted to `file` and owned by the engine's worker thread (hnsw-worker.js), plus the
 * *pending* vectors committed to SQLite but not yet acknowledged as inserted by the worker. Pending
 * vectors are handed to the worker in batches (at most {@link BATCHES_IN_FLIGHT} unacknowledged)
 * but stay in the local arena until the worker reports them inserted, and searches merge the graph
 * search (in the worker) with an exact scan of the arena (here, meanwhile). A label leaves the
 * arena only after the worker added it, and the worker handles messages in order, so every
 * committed vector is in the arena or in the graph a search runs on. Deletions reach the worker in
 * the same order, so a search never returns a label deleted before it was sent (the worker leaves
 * out those it holds back while writing the file); one deleted while it runs can come back, and
 * callers read the rows of their results from SQLite, where it is gone. Labels are never reused,
 * so a label that still exists in SQLite is always the current version.
 */
export class NamespaceVectors {
  /** The worker's id of the graph, once loaded and reconciled. */
  private graph: string | undefined;
  private loading: Promise<void> | undefined;
  private readonly pending: PendingVectors;
  /** Pending labels not yet handed to the worker... */
  private readonly unsent = new Set<number>();
  /** ...oldest first from `unsentHead` (a Set iterated from its front after many deletions is slow). */
  private unsentOrder: number[] = [];
  private unsentHead = 0;
  /** Pending labels handed to the worker, not yet acknowledged. */
  private readonly inFlight = new Set<number>();
  private reloadTimer: NodeJS.Timeout | undefined;
  /** Bumped whenever the state is discarded, so a load that finishes afterwards is ignored. */
  private epoch = 0;
  /** The close of a graph {@link restart} replaced: the next open of the file waits for it. */
  private closingGraph: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly file: string,
    private readonly dimensions: number,
    private readonly settings: HnswSettings,
    private readonly source: VectorSource,
    private readonly logger: EngineLogger,
    private readonly worker: HnswWorker,
    /** Vectors per insertion batch sent to the worker. */
    private readonly batchSize: number,
  ) {
    this.pending = new PendingVectors(dimensions);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Loads (once) the graph file in the worker and reconciles it with SQLite; rebuilds when missing or unreadable. */
  load(): Promise<void> {
    if (!this.loading) {
      const loading: Promise<void> = this.openAndReconcile().catch((error) => {
        if (this.loading === loading) this.loading = undefined; // the next caller tries again
        throw error;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  /** After a commit: new versions become pending, removed ones leave the pending set or the graph. */
  changed(added: { label: number; vector: VectorCode }[], removed: number[]): void {
    const graph = this.graph;
    if (!graph) return; // the reconciliation at load time will see these rows
    const fromGraph: number[] = [];
    for (const label of removed) {
      if (!this.pending.delete(label)) fromGraph.push(label);
      else if (!this.unsent.delete(label) && this.inFlight.delete(label)) fromGraph.push(label); // or its queue
    }
    if (fromGraph.length > 0) this.forget(this.worker.delete(graph, fromGraph));
    for (const { label, vector } of added) {
      if (this.pending.has(label)) continue;
      this.pending.add(label, vector);
      this.unsent.add(label);
      this.unsentOrder.push(label);
    }
    this.send();
  }

  /**
   * Approximate nearest neighbours from the graph (similarity = cosine), best first: `k` of them
   * plus up to {@link TIE_MARGIN} more, searched with the ef for `wanted` results at `effort` (see
   * {@link searchEf}); with `allowed`, only those. Callers cut to `k` after ordering ties by label:
   * the graph returns equal scores in no defined order, and nodes must agree on the answer.
   */
  async nearest(query: Float32Array, k: number, allowed?: Set<number>, wanted = k, effort = 1): Promise<Scored[]> {
    const graph = this.graph;
    if (!graph) return [];
    const asked = k + TIE_MARGIN;
    const ef = searchEf(this.settings.efSearch, asked, Math.min(wanted, k), effort);
    const { labels, scores } = await this.worker.search(
      graph,
      query,
      asked,
      ef,
      allowed ? Float64Array.from(allowed) : undefined,
    );
    const hits: Scored[] = [];
    for (let i = 0; i < labels.length; i++)
      if (!Number.isNaN(scores[i])) hits.push({ label: labels[i], score: scores[i] });
    return hits.sort(bestFirst);
  }

  /**
   * The exact cosine (as codeDot computes it) of those of `labels` whose vectors this namespace
   * holds, pending or in the graph, into `out`: the codes are in memory here and in the worker,
   * where SQLite would read a page per label. Labels it does not hold are left out.
   */
  async scores(query: Float32Array, labels: number[], out: Map<number, number>): Promise<void> {
    const inGraph: number[] = [];
    for (const label of labels) {
      const score = this.pending.score(label, query);
      if (score === undefined) inGraph.push(label);
      else out.set(label, score);
    }
    const graph = this.graph;
    if (!graph || inGraph.length === 0) return;
    const found = await this.worker.scores(graph, query, Float64Array.from(inGraph));
    for (let i = 0; i < found.labels.length; i++) {
      if (!Number.isNaN(found.scores[i])) out.set(found.labels[i], found.scores[i]);
    }
  }

  /** Exact top-k over the pending vectors (those accepted), best first. */
  nearestPending(query: Float32Array, k: number, accept?: (label: number) => boolean): Scored[] {
    return this.pending.nearest(query, k, accept);
  }

  /** Writes the graph to its file when it changed (atomically: temp file + rename). */
  async persist(): Promise<void> {
    const graph = this.graph;
    if (!graph || this.disposed) return;
    try {
      await this.worker.persist(graph);
    } catch (error) {
      // Once disposed, a write cut short by the file's removal is expected.
      if (!this.disposed) this.logger.error({ err: error, file: this.file }, 'writing the vector index failed');
    }
  }

  /**
   * Stops all work after in-flight loads; without `deleteFiles` writes the graph (when changed)
   * first, with it removes the graph file.
   */
  async dispose(deleteFiles: boolean): Promise<void> {
    this.disposed = true;
    clearTimeout(this.reloadTimer);
    await this.loading?.catch(() => undefined);
    const graph = this.graph;
    this.reset();
    if (graph) {
      try {
        await this.worker.close(graph, !deleteFiles);
      } catch (error) {
        this.logger.error({ err: error, file: this.file }, 'closing the vector index failed');
      }
    }
    if (deleteFiles) await removeReplacedFile(this.file);
  }

  /**
   * Closes the graph without writing it and loads it again from its file, reconciled with SQLite:
   * for a graph that failed to follow a commit. Nothing is written, so no file of this namespace
   * is written by two graphs, and a discard right after leaves no file behind.
   */
  restart(): void {
    const graph = this.graph;
    // Not loaded yet: the load's reconciliation, when it ends, sees the commit.
    if (!graph || this.disposed) return;
    this.reset();
    // The worker runs requests concurrently: a persist of the old graph under way would still be
    // writing the file (its close waits for that) when the new graph opens and, later, writes it.
    this.closingGraph = this.worker.close(graph, false).catch((error) => {
      this.logger.error({ err: error, file: this.file }, 'closing the vector index failed');
    });
    this.forget(this.load());
  }

  private reset(): void {
    this.epoch++;
    this.graph = undefined;
    this.loading = undefined;
    this.pending.clear();
    this.unsent.clear();
    this.unsentOrder = [];
    this.unsentHead = 0;
    this.inFlight.clear();
  }

  /** Hands unsent pending vectors to the worker, oldest first, up to the in-flight limit. */
  private send(): void {
    const graph = this.graph;
    const limit = BATCHES_IN_FLIGHT * this.batchSize;
    while (graph && !this.disposed && this.unsent.size > 0 && this.inFlight.size < limit) {
      const count = Math.min(this.batchSize, this.unsent.size, limit - this.inFlight.size);
      const labels = new Float64Array(count);
      const vectors = new Float32Array(count * this.dimensions);
      for (let i = 0; i < count; ) {
        const label = this.unsentOrder[this.unsentHead++];
        if (!this.unsent.delete(label)) continue; // deleted meanwhile
        this.inFlight.add(label);
        labels[i] = label;
        this.pending.decodeInto(label, vectors, i * this.dimensions);
        i++;
      }
      this.forget(this.worker.add(graph, labels, vectors));
    }
    if (this.unsentHead > 4096 && this.unsentHead * 2 > this.unsentOrder.length) {
      this.unsentOrder = this.unsentOrder.slice(this.unsentHead);
      this.unsentHead = 0;
    }
  }

  /** The worker inserted these labels: they leave the arena unless deleted (or reloaded) meanwhile. */
  private added(labels: Float64Array): void {
    for (const label of labels) if (this.inFlight.delete(label)) this.pending.delete(label);
    this.send();
  }

  /** The worker died with the graph: start over from the file and SQLite a little later. */
  private lost(): void {
    this.reset();
    if (this.disposed) return;
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.forget(this.load()), RELOAD_DELAY_MS).unref();
  }

  private forget(work: Promise<unknown>): void {
    work.catch((error) => {
      if (!this.disposed) this.logger.error({ err: error, file: this.file }, 'vector index work failed');
    });
  }

  private async openAndReconcile(): Promise<void> {
    const epoch = this.epoch;
    await this.closingGraph;
    // The worker died during that wait: an open now would go to its successor and be leaked; the
    // reload lost() scheduled opens the file instead.
    if (this.epoch !== epoch) return;
    // A graph closed by restart() may still report insertions: they are not the new graph's.
    const listener = {
      added: (labels: Float64Array) => {
        if (this.epoch === epoch) this.added(labels);
      },
      lost: () => this.lost(),
    };
    const opened = await this.worker.open(this.file, this.dimensions, this.settings, listener);
    if (opened.unreadable) {
      this.logger.warn(
        { err: opened.unreadable, file: this.file },
        'vector index file unreadable; rebuilding from SQLite',
      );
    }
    if (this.disposed) {
      this.graph = opened.graph; // dispose() awaits this load, then closes what it finds here
      return;
    }
    if (this.epoch !== epoch) return; // the worker died meanwhile; lost() schedules a reload
    // From here on everything is synchronous: no commit can interleave, so after this block every
    // committed row is either in the graph or pending, and later commits go through changed().
    const fileLabels = new Set(opened.labels);
    const live = this.source.liveLabels();
    const liveSet = new Set(live);
    const missing = live.filter((label) => !fileLabels.has(label));
    for (const [label, vector] of this.source.vectors(missing)) {
      this.pending.add(label, vector);
      this.unsent.add(label);
      this.unsentOrder.push(label);
    }
    const stale = [...fileLabels].filter((label) => !liveSet.has(label));
    this.graph = opened.graph;
    this.send();
    const deleted = stale.length > 0 ? await this.worker.delete(opened.graph, stale) : 0;
    if (fileLabels.size > 0 && (missing.length > 0 || deleted > 0)) {
      this.logger.info(
        { file: this.file, pending: missing.length, stale: deleted },
        'vector index reconciled with SQLite',
      );
    }
  }
}
