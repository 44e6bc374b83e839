/** The main thread's share that indexing takes while writes keep arriving. */
const WRITE_LOAD_SHARE = 1 / 3;

/** The longest pause for writes between two batches (after a slow one, e.g. a full-text index built). */
const MAX_PAUSE_MS = 100;

/** The first retry of a batch whose indexing failed, after this long; each next one waits twice as long. */
const RETRY_FIRST_MS = 1000;
/** The longest wait between two retries of a failing batch. */
const RETRY_MAX_MS = 60_000;

/** One write's new document versions, to be embedded and indexed. */
interface Batch {
  nsId: number;
  labels: number[];
  /** Failed attempts so far. */
  failures: number;
}

export interface IndexingBacklogTiming {
  /** The longest pause for writes between two batches. */
  maxPauseMs: number;
  /** The first retry of a failed batch; doubling from there up to `retryMaxMs`. */
  retryFirstMs: number;
  retryMaxMs: number;
}

/**
 * Documents that are committed to SQLite but not yet embedded and indexed, in commit order. A
 * write is acknowledged once it is durable; its analysis, embedding, full-text and vector indexing
 * happen here, one write at a time, between the requests that keep arriving: while writes come in,
 * indexing takes a third of the main thread, so a burst is acknowledged at close to the speed of
 * SQLite. A search waits for {@link settled} first, so it sees every write acknowledged before it.
 *
 * Only labels are held: the documents are read back from SQLite, so the backlog costs little
 * memory, and after a crash the same documents are found again in SQLite (those without a vector)
 * and indexed the same way.
 *
 * A batch whose indexing fails (the disk full, an embedder error) leaves the queue, so searches do
 * not wait for it, and is tried again later, after 1 s, then twice as long each time up to a
 * minute, until it is indexed or the backlog closes; its documents stay counted meanwhile.
 */
export class IndexingBacklog {
  private readonly batches: Batch[] = [];
  private readonly counts = new Map<number, number>();
  private total = 0;
  /** Batches queued (retries too), and attempts finished (indexed or failed), since the start. */
  private pushed = 0;
  private done = 0;
  private running = false;
  /** Callers of {@link settled}: while there are any, batches run without pausing for writes. */
  private waiting = 0;
  private readonly afterBatch: (() => void)[] = [];
  private closed = false;
  /** Whether a write came in since the last pause between batches. */
  private written = false;
  /** Ends the pause under way for writes (a search or close() does not wait for it). */
  private endPause: (() => void) | undefined;
  /** Failed batches waiting for their retry. */
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly timing: IndexingBacklogTiming;

  constructor(
    /** Embeds and indexes those of `labels` that still exist (some may be replaced or deleted since). */
    private readonly index: (nsId: number, labels: number[]) => Promise<void>,
    /**
     * A batch that failed, to be tried again in `retryInMs`, or (undefined) only at the next open
     * because the backlog closed meanwhile.
     */
    private readonly onError: (error: unknown, nsId: number, labels: number[], retryInMs: number | undefined) => void,
    /** Called when the last waiting batch is indexed (none failing either). */
    private readonly onDrained: () => void = () => {},
    timing: Partial<IndexingBacklogTiming> = {},
  ) {
    this.timing = { maxPauseMs: MAX_PAUSE_MS, retryFirstMs: RETRY_FIRST_MS, retryMaxMs: RETRY_MAX_MS, ...timing };
  }

  push(nsId: number, labels: number[]): void {
    if (labels.length === 0 || this.closed) return;
    this.counts.set(nsId, (this.counts.get(nsId) ?? 0) + labels.length);
    this.total += labels.length;
    this.written = true;
    this.enqueue({ nsId, labels, failures: 0 });
  }

  /** Documents waiting, in one namespace or in all. */
  count(nsId?: number): number {
    return nsId === undefined ? this.total : (this.counts.get(nsId) ?? 0);
  }

  /** Failed batches waiting for their retry. */
  get retrying(): number {
    return this.retries.size;
  }

  /**
   * Resolves once everything queued before the call has been tried (indexed, or failed and due
   * for a retry), or the backlog is closed; writes that come in meanwhile are not waited for.
   */
  async settled(): Promise<void> {
    const target = this.pushed;
    if (this.done >= target || this.closed) return;
    this.waiting++;
    this.endPause?.();
    try {
      while (this.done < target && !this.closed) {
        await new Promise<void>((resolve) => this.afterBatch.push(resolve));
      }
    } finally {
      this.waiting--;
    }
  }

  /** Stops taking batches and retrying failed ones; resolves when the one being indexed (if any) is done. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    this.endPause?.();
    while (this.running) await new Promise<void>((resolve) => this.afterBatch.push(resolve));
  }

  private async run(): Promise<void> {
    this.running = true;
    let lastMs = 0;
    try {
      while (this.batches.length > 0 && !this.closed) {
        await this.pause(lastMs);
        if (this.closed) break;
        const batch = this.batches[0];
        const started = performance.now();
        let failed = false;
        try {
          await this.index(batch.nsId, batch.labels);
        } catch (error) {
          failed = true;
          const retryInMs = this.closed
            ? undefined
            : Math.min(this.timing.retryMaxMs, this.timing.retryFirstMs * 2 ** batch.failures);
          batch.failures++;
          if (retryInMs !== undefined) this.retryLater(batch, retryInMs);
          try {
            this.onError(error, batch.nsId, batch.labels, retryInMs);
          } catch {
            // Reporting must not stop the backlog: searches wait for it.
          }
        }
        lastMs = performance.now() - started;
        this.batches.shift();
        this.done++;
        if (!failed) this.uncount(batch);
        if (this.total === 0) this.onDrained();
        this.wake();
      }
    } finally {
      this.running = false;
      this.wake();
    }
  }

  private enqueue(batch: Batch): void {
    this.batches.push(batch);
    this.pushed++;
    if (!this.running) void this.run();
  }

  private retryLater(batch: Batch, delayMs: number): void {
    const timer = setTimeout(() => {
      // close() clears these timers, so one that fires finds the backlog open.
      this.retries.delete(timer);
      this.enqueue(batch);
    }, delayMs);
    // A failing batch must not keep the process alive; at the next open it is found in SQLite.
    timer.unref();
    this.retries.add(timer);
  }

  private uncount(batch: Batch): void {
    this.total -= batch.labels.length;
    const left = (this.counts.get(batch.nsId) ?? 0) - batch.labels.length;
    if (left > 0) this.counts.set(batch.nsId, left);
    else this.counts.delete(batch.nsId);
  }

  private wake(): void {
    for (const resolve of this.afterBatch.splice(0)) resolve();
  }

  /**
   * Lets pending I/O run before the next batch: while writes keep coming, a pause that leaves them
   * the rest of the thread ({@link WRITE_LOAD_SHARE}), unless a search waits; otherwise just one
   * turn of the event loop.
   */
  private pause(lastMs: number): Promise<void> {
    const writing = this.written;
    this.written = false;
    // A turn of the event loop even when a search waits: other requests go on meanwhile.
    if (!writing || this.waiting > 0) return new Promise((resolve) => setImmediate(resolve));
    const pauseMs = Math.min(this.timing.maxPauseMs, (lastMs * (1 - WRITE_LOAD_SHARE)) / WRITE_LOAD_SHARE);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endPause?.(), pauseMs);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = undefined;
        resolve();
      };
    });
  }
}
