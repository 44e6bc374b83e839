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
