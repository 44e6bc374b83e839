import { Worker } from 'node:worker_threads';
import type { EngineLogger } from '../providers/provider-types.js';
import { idleCollection } from './idle-collection.js';
import { mainThreadLoad } from './main-thread-load.js';

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

export interface GraphSearchResult {
  labels: Float64Array;
  distances: Float32Array;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The main thread's side of hnsw-worker.js: one worker thread per engine owns every open HNSW
 * graph, so insertion runs on another core and never blocks requests. Requests are promises;
 * the worker is referenced (keeps the process alive) only while one is outstanding. When the
 * worker dies, outstanding requests reject, every graph's listener hears `lost()`, and the next
 * request starts a new worker.
 */
export class HnswWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private nextGraph = 1;
  private readonly requests = new Map<number, Pending>();
  private readonly listeners = new Map<string, GraphListener>();
  private terminating = false;

  constructor(private readonly logger: EngineLogger) {}

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
      const opened = (await this.request({ type: 'open', graph, file, dimensions, ...settings })) as Omit<
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
    return this.request({ type: 'add', graph, labels, vectors }, [
      labels.buffer as ArrayBuffer,
      vectors.buffer as ArrayBuffer,
    ]) as Promise<void>;
  }

  /** Deletes labels from the graph or its queue; resolves with how many were in the graph. */
  delete(graph: string, labels: number[]): Promise<number> {
    return this.request({ type: 'delete', graph, labels }) as Promise<number>;
  }

  search(
    graph: string,
    query: Float32Array,
    k: number,
    ef: number,
    allowed?: Float64Array,
  ): Promise<GraphSearchResult> {
    return this.request(
      { type: 'search', graph, query, k, ef, allowed },
      allowed ? [allowed.buffer as ArrayBuffer] : [],
    ) as Promise<GraphSearchResult>;
  }

  /** Writes the graph file if the graph changed; resolves with whether it wrote. */
  persist(graph: string): Promise<boolean> {
    return this.request({ type: 'persist', graph }) as Promise<boolean>;
  }

  /** Drops queued insertions, writes the graph first when `persist`, and frees it. */
  async close(graph: string, persist: boolean): Promise<void> {
    try {
      await this.request({ type: 'close', graph, persist });
    } finally {
      this.listeners.delete(graph);
    }
  }

  /** Makes the worker die of an uncaught error (tests of the failure path). */
  crash(): void {
    this.start().postMessage({ type: 'crash' });
  }

  /** Stops the worker (graphs still open are lost without being written). */
  async terminate(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.terminating = true;
    try {
      await worker.terminate();
    } finally {
      this.terminating = false;
    }
  }

  private request(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      if (this.requests.size === 1) worker.ref();
      worker.postMessage({ ...message, id }, transfer);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./hnsw-worker.js', import.meta.url), {
      workerData: { mainThreadBusy: mainThreadLoad.flag },
    });
    mainThreadLoad.attach();
    worker.unref();
    worker.on('message', (message) => this.received(message));
    worker.on('error', (error) => this.logger.error({ err: error }, 'the vector index worker failed'));
    worker.on('exit', (code) => this.exited(worker, code));
    this.worker = worker;
    return worker;
  }

  private received(message: {
    id?: number;
    result?: unknown;
    error?: { message: string; stack?: string; code?: string };
    type?: string;
    graph?: string;
    labels?: Float64Array;
    label?: number;
  }): void {
    if (message.id !== undefined) {
      const request = this.requests.get(message.id);
      if (!request) return;
      this.requests.delete(message.id);
      if (this.requests.size === 0) this.worker?.unref();
      if (message.error) {
        const error = new Error(`vector index worker: ${message.error.message}`);
        if (message.error.stack) error.stack = `${error.message}\n${message.error.stack}`;
        request.reject(message.error.code === undefined ? error : Object.assign(error, { code: message.error.code }));
      } else {
        request.resolve(message.result);
      }
    } else if (message.type === 'added') {
      this.listeners.get(message.graph!)?.added(message.labels!);
      idleCollection.note(message.labels!.length);
    } else if (message.type === 'failed') {
      this.logger.error(
        { graph: message.graph, label: message.label, err: message.error },
        'inserting a vector failed',
      );
    }
  }

  private exited(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    mainThreadLoad.detach();
    const expected = this.terminating;
    if (!expected) this.logger.error({ code }, 'the vector index worker exited; open graphs reload from SQLite');
    const error = new Error(`the vector index worker exited (code ${code})`);
    const requests = [...this.requests.values()];
    this.requests.clear();
    for (const request of requests) request.reject(error);
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.lost();
  }
}
