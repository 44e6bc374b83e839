import type { EngineLogger } from '../providers/provider-types.js';
import { idleCollection } from './idle-collection.js';
import { mainThreadLoad } from './main-thread-load.js';
import { WorkerClient } from './worker-client.js';

/** What a graph's owner hears from the worker besides replies. */
export interface GraphListener {
  /** The worker inserted these labels (or skipped them, having been deleted meanwhile). */
  added(labels: Float64Array): void;
  /** The worker died: the graph is gone, and so is everything queued for it. */
  lost(): void;
}

export interface OpenedGraph {
  graph: string;
  /** Labels in the graph file (empty when it was missing or unreadable). */
  labels: Float64Array;
  /** Why an existing file could not be read. */
  unreadable?: string;
}

/** Labels with their exact cosine to the query (NaN: not in the graph, or deleted). */
export interface GraphScores {
  labels: Float64Array;
  scores: Float64Array;
}

/**
 * The main thread's side of hnsw-worker.js: one worker thread owns HNSW graphs, so insertion runs
 * on another core and never blocks requests. When the worker dies, outstanding requests reject,
 * every graph's listener hears `lost()`, and the next request starts a new worker.
 */
export class HnswWorker {
  private nextGraph = 1;
  private readonly listeners = new Map<string, GraphListener>();
  private readonly client: WorkerClient;

  constructor(private readonly logger: EngineLogger) {
    this.client = new WorkerClient(
      'vector index worker',
      new URL('./hnsw-worker.js', import.meta.url),
      { workerData: { mainThreadBusy: mainThreadLoad.flag } },
      {
        started: () => mainThreadLoad.attach(),
        event: (message) => this.event(message),
        failed: (error) => this.logger.error({ err: error }, 'the vector index worker failed'),
        exited: (code, expected) => this.exited(code, expected),
      },
    );
  }

  /** Opens the graph file in the worker (an empty graph when missing or unreadable). */
  async open(
    file: string,
    dimensions: number,
    settings: { m: number; efConstruction: number },
    listener: GraphListener,
  ): Promise<OpenedGraph> {
    const graph = `g${this.nextGraph++}`;
    this.listeners.set(graph, listener);
    try {
      const opened = (await this.client.request({ type: 'open', graph, file, dimensions, ...settings })) as Omit<
        OpenedGraph,
        'graph'
      >;
      return { graph, ...opened };
    } catch (error) {
      this.listeners.delete(graph);
      throw error;
    }
  }

  /** Queues vectors for insertion (the buffers are transferred); progress arrives as `added`. */
  add(graph: string, labels: Float64Array, vectors: Float32Array): Promise<void> {
    return this.client.request({ type: 'add', graph, labels, vectors }, [
      labels.buffer as ArrayBuffer,
      vectors.buffer as ArrayBuffer,
    ]) as Promise<void>;
  }

  /** Deletes labels from the graph or its queue; resolves with how many were in the graph. */
  delete(graph: string, labels: number[]): Promise<number> {
    return this.client.request({ type: 'delete', graph, labels }) as Promise<number>;
  }

  search(graph: string, query: Float32Array, k: number, ef: number, allowed?: Float64Array): Promise<GraphScores> {
    return this.client.request(
      { type: 'search', graph, query, k, ef, allowed },
      allowed ? [allowed.buffer as ArrayBuffer] : [],
    ) as Promise<GraphScores>;
  }

  /** The exact cosine of `labels` (the buffer is transferred) held by the graph; see GraphScores. */
  scores(graph: string, query: Float32Array, labels: Float64Array): Promise<GraphScores> {
    return this.client.request({ type: 'scores', graph, query, labels }, [
      labels.buffer as ArrayBuffer,
    ]) as Promise<GraphScores>;
  }

  /** Writes the graph file if the graph changed; resolves with whether it wrote. */
  persist(graph: string): Promise<boolean> {
    return this.client.request({ type: 'persist', graph }) as Promise<boolean>;
  }

  /** Drops queued insertions, writes the graph first when `persist`, and frees it. */
  async close(graph: string, persist: boolean): Promise<void> {
    try {
      await this.client.request({ type: 'close', graph, persist });
    } finally {
      this.listeners.delete(graph);
    }
  }

  /** Makes the worker die of an uncaught error (tests of the failure path). */
  crash(): void {
    this.client.post({ type: 'crash' });
  }

  /** Stops the worker (graphs still open are lost without being written). */
  terminate(): Promise<void> {
    return this.client.terminate();
  }

  private event(message: Record<string, unknown>): void {
    if (message.type === 'added') {
      const labels = message.labels as Float64Array;
      this.listeners.get(message.graph as string)?.added(labels);
      idleCollection.note(labels.length);
    } else if (message.type === 'failed') {
      this.logger.error(
        { graph: message.graph, label: message.label, err: message.error },
        'inserting a vector failed',
      );
    }
  }

  private exited(code: number, expected: boolean): void {
    mainThreadLoad.detach();
    if (!expected) this.logger.error({ code }, 'the vector index worker exited; open graphs reload from SQLite');
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.lost();
  }
}
