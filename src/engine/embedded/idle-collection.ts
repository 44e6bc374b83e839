import { collectGarbage } from './exposed-gc.js';

/** Documents written or moved into vector graphs since the last collection that make one worth it. */
const MIN_DOCUMENTS = 10_000;
/** How long writes and vector indexing must have been quiet. */
const QUIET_MS = 1000;

/**
 * One full garbage collection once a burst of writes is over. A bulk load leaves hundreds of MB of
 * dead request bodies, analyses and vector buffers behind, and V8, with nothing more allocated,
 * may not collect them for a long time: the thread then holds far more resident memory than it
 * uses, depending on when its last collection happened to run. Collecting
 * when writes and vector indexing have been quiet for a second costs one pause of tens of
 * milliseconds per burst, at a moment the node is not ingesting.
 */
export class IdleCollection {
  private work = 0;
  private lastActivity = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly gc: (() => void) | undefined,
    private readonly options: { minDocuments: number; quietMs: number; now: () => number } = {
      minDocuments: MIN_DOCUMENTS,
      quietMs: QUIET_MS,
      now: () => performance.now(),
    },
  ) {}

  /** Records `documents` written, deleted or indexed into a vector graph. */
  note(documents: number): void {
    if (!this.gc || documents <= 0) return;
    this.work += documents;
    this.lastActivity = this.options.now();
    if (this.timer || this.work < this.options.minDocuments) return;
    this.timer = setInterval(() => this.check(), this.options.quietMs / 2);
    this.timer.unref();
  }

  private check(): void {
    if (this.options.now() - this.lastActivity < this.options.quietMs) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.work = 0;
    this.gc?.();
  }
}

/** The process's one collector (garbage collection is per thread; writes all run on the main one). */
export const idleCollection = new IdleCollection(collectGarbage);

/** Native memory dropped since the last collection that makes one worth it. */
const DROPPED_NATIVE_BYTES = 8 * 1024 * 1024;

/**
 * One full garbage collection once objects dropped from caches hold this much native memory.
 * A prepared statement evicted from a cache frees its compiled program (SQLite's memory, which V8
 * does not see) only when V8 collects the statement object, and V8, seeing a few bytes per
 * statement, may let tens of MB of them wait: a client sending thousands of distinct filter shapes
 * would grow the process by all of it. Counting what was dropped bounds it at this much.
 */
export class DroppedNativeMemory {
  private dropped = 0;
  private scheduled = false;

  constructor(
    private readonly gc: (() => void) | undefined,
    private readonly thresholdBytes = DROPPED_NATIVE_BYTES,
  ) {}

  /** Records `bytes` of native memory held by an object just dropped. */
  note(bytes: number): void {
    if (!this.gc) return;
    this.dropped += bytes;
    if (this.dropped < this.thresholdBytes || this.scheduled) return;
    this.scheduled = true;
    // After the work that dropped them, not in the middle of a request's statements.
    setImmediate(() => {
      this.scheduled = false;
      this.dropped = 0;
      this.gc?.();
    }).unref();
  }
}

/** The main thread's account of dropped native memory (statements are prepared there). */
export const droppedNativeMemory = new DroppedNativeMemory(collectGarbage);
