import { Worker, type WorkerOptions } from 'node:worker_threads';

/** What outstanding requests reject with when their worker thread dies. */
export class WorkerExitedError extends Error {}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A worker's reply to one request: `{ id, result }` or `{ id, error }`; anything else is an event. */
interface Reply {
  id?: number;
  result?: unknown;
  error?: { message: string; stack?: string; code?: string };
}

export interface WorkerClientHooks {
  /** A new thread was started (before its first request). */
  started?(): void;
  /** A message that answers no request (a worker-initiated event). */
  event?(message: Record<string, unknown>): void;
  /** The thread exited; `expected` when {@link WorkerClient.terminate} stopped it. */
  exited?(code: number, expected: boolean): void;
  /** The thread failed with an uncaught error (it exits next). */
  failed?(error: Error): void;
}

/**
 * Requests to a worker thread as promises. The thread starts with the first request and is
 * referenced (keeps the process alive) only while a request is outstanding. Requests carry an `id`
 * and get one reply `{ id, result }` or `{ id, error: { message, stack, code } }`. When the thread
 * dies, every outstanding request rejects and the next request starts a new thread.
 */
export class WorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly requests = new Map<number, Pending>();
  private terminating = false;

  constructor(
    /** How errors name the thread, e.g. "vector index worker". */
    private readonly name: string,
    private readonly script: URL,
    private readonly options: WorkerOptions,
    private readonly hooks: WorkerClientHooks = {},
  ) {}

  /** Whether the thread runs now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Sends a request (the `transfer` buffers are moved, not copied); resolves with its result. */
  request(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject });
      if (this.requests.size === 1) worker.ref();
      worker.postMessage({ ...message, id }, transfer);
    });
  }

  /** Sends a message that expects no reply. */
  post(message: Record<string, unknown>): void {
    this.start().postMessage(message);
  }

  /** Stops the thread (what it held is lost); outstanding requests reject. */
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

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script, this.options);
    worker.unref();
    worker.on('message', (message: Reply & Record<string, unknown>) => this.received(message));
    worker.on('error', (error) => this.hooks.failed?.(error));
    worker.on('exit', (code) => this.exited(worker, code));
    this.worker = worker;
    this.hooks.started?.();
    return worker;
  }

  private received(message: Reply & Record<string, unknown>): void {
    if (message.id === undefined) {
      this.hooks.event?.(message);
      return;
    }
    const request = this.requests.get(message.id);
    if (!request) return;
    this.requests.delete(message.id);
    if (this.requests.size === 0) this.worker?.unref();
    if (message.error) {
      const error = new Error(`${this.name}: ${message.error.message}`);
      if (message.error.stack) error.stack = `${error.message}\n${message.error.stack}`;
      request.reject(message.error.code === undefined ? error : Object.assign(error, { code: message.error.code }));
    } else {
      request.resolve(message.result);
    }
  }

  private exited(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const error = new WorkerExitedError(`the ${this.name} exited (code ${code})`);
    const requests = [...this.requests.values()];
    this.requests.clear();
    for (const request of requests) request.reject(error);
    this.hooks.exited?.(code, this.terminating);
  }
}

/**
 * How a worker's reply to a request is written: the result, or the error with its system code
 * (EMFILE...), which decides the answer the main thread gives. For the worker side.
 */
export function errorReply(id: number, error: unknown): Record<string, unknown> {
  const failure = error as { message?: string; stack?: string; code?: unknown } | undefined;
  return {
    id,
    error: {
      message: error instanceof Error ? error.message : String(error),
      stack: failure?.stack,
      code: typeof failure?.code === 'string' ? failure.code : undefined,
    },
  };
}
