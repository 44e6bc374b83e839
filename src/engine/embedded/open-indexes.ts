import { AppError } from '../../errors.js';

interface Entry<T> {
  opening: Promise<T>;
  /** The index, once open. */
  index?: T;
  users: number;
  /** Called when the last user releases the entry (set by a close waiting for that). */
  idle?: () => void;
  /** Holds one of the capacity's slots: from its admission until its close ends. */
  slot: boolean;
}

/** Ids of dropped indexes remembered, so a late request cannot re-create their files. */
const DROPPED_MEMORY = 10_000;

/** Longest a new index waits for a slot before it opens over the capacity. */
const ADMISSION_WAIT_MS = 2_000;

/**
 * The indexes open on this node, within `capacity` slots, so thousands of indexes cost neither
 * thousands of file descriptors nor their memory. An index holds a slot from its opening until
 * its close ends: a closing index still holds its descriptors (its database stays open while its
 * files are written), and counting only the open ones let a burst of requests over many indexes
 * pile up closes faster than they finished, until the process ran out of descriptors.
 *
 * The least recently used idle indexes start closing a little before the slots run out (a
 * sixteenth of them are kept free), so a new index seldom waits for a close; when none is free,
 * it waits for one (first come, first served). An index is never closed while an operation uses
 * it; when every slot's index is in use and none is closing, a new index opens over the capacity
 * rather than wait for those operations, and so does one that waited {@link ADMISSION_WAIT_MS}
 * (a close that does not end, waiting on a stuck embedder say, must not stop every new index).
 * Reopening waits for a previous close of the same index, and a dropped index cannot be reopened.
 */
export class OpenIndexes<T extends { close(): Promise<void> }> {
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry<T>>();
  private readonly closing = new Map<string, Promise<void>>();
  private readonly dropped = new Set<string>();
  private readonly removals = new Map<string, Promise<void>>();
  /** Slots held: indexes opening, open or closing. */
  private slots = 0;
  /** Closes under way of indexes that hold a slot. */
  private closes = 0;
  /** New indexes waiting for a slot, first come first served. */
  private admissions: (() => void)[] = [];
  /** Entries nobody uses (those {@link rebalance} may close), counted so that it scans only for them. */
  private idleEntries = 0;
  /** Idle indexes beyond this many (open or opening) start closing. */
  private readonly keepOpen: number;

  constructor(
    private readonly capacity: number,
    private readonly openIndex: (id: string) => Promise<T>,
    /** Hears about an index that failed to close (its files are still consistent on disk). */
    private readonly onCloseError: (id: string, error: unknown) => void,
    private readonly admissionWaitMs = ADMISSION_WAIT_MS,
  ) {
    this.keepOpen = capacity - Math.floor(capacity / 16);
  }

  /** Runs `work` on the open index (opening it first if needed); it stays open meanwhile. */
  async use<R>(id: string, work: (index: T) => Promise<R>): Promise<R> {
    const entry = this.acquire(id);
    try {
      return await work(await entry.opening);
    } finally {
      if (--entry.users === 0) {
        entry.idle?.();
        if (this.entries.get(id) === entry) this.idleEntries++;
      }
      this.rebalance();
    }
  }

  /** The open indexes (for statistics); those still opening are skipped. */
  async openNow(): Promise<T[]> {
    return [...this.entries.values()].flatMap((entry) => (entry.index === undefined ? [] : [entry.index]));
  }

  /** The index if it is open (or opening: then once open), without opening it or changing its recency. */
  peek(id: string): Promise<T> | undefined {
    return this.entries.get(id)?.opening;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Closes the index once its current users are done, forbids reopening it, then runs `remove`. */
  drop(id: string, remove: () => Promise<void>): Promise<void> {
    // A second drop of the same index (a node hears about its own drop, say) joins the first.
    let removal = this.removals.get(id);
    if (removal) return removal;
    this.dropped.add(id);
    if (this.dropped.size > DROPPED_MEMORY) this.dropped.delete(this.dropped.values().next().value!);
    const entry = this.entries.get(id);
    if (entry?.users === 0) this.idleEntries--;
    this.entries.delete(id);
    removal = (async () => {
      if (entry) await this.closeWhenIdle(id, entry);
      await this.closing.get(id);
      await remove();
    })().finally(() => this.removals.delete(id));
    this.removals.set(id, removal);
    return removal;
  }

  /** Whether `id` was dropped on this node (recently; the memory is bounded). */
  wasDropped(id: string): boolean {
    return this.dropped.has(id);
  }

  /** Closes every index (waiting for their users). */
  async closeAll(): Promise<void> {
    const all = [...this.entries];
    this.entries.clear();
    this.idleEntries = 0;
    await Promise.all(all.map(([id, entry]) => this.closeWhenIdle(id, entry)));
    await Promise.all([...this.closing.values()]);
  }

  private acquire(id: string): Entry<T> {
    if (this.dropped.has(id)) throw new AppError('index_not_found', 'Search index not found');
    const known = this.entries.get(id);
    if (known) {
      this.entries.delete(id); // re-inserted: most recently used
      this.entries.set(id, known);
      if (known.users++ === 0) this.idleEntries--;
      return known;
    }
    const previousClose = this.closing.get(id);
    const entry = { users: 1, slot: false } as Entry<T>;
    this.entries.set(id, entry);
    entry.opening = (async () => {
      await previousClose;
      await this.admission(entry);
      // Dropped while it waited: its files are going, and must not be made again.
      if (this.dropped.has(id)) throw new AppError('index_not_found', 'Search index not found');
      entry.index = await this.openIndex(id);
      return entry.index;
    })();
    entry.opening.catch(() => {
      if (this.entries.get(id) === entry) {
        if (entry.users === 0) this.idleEntries--;
        this.entries.delete(id);
      }
      this.freeSlot(entry);
    });
    return entry;
  }

  /** Resolves once `entry` holds a slot. */
  private admission(entry: Entry<T>): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const admit = () => {
        clearTimeout(timer);
        entry.slot = true;
        this.slots++;
        resolve();
      };
      this.admissions.push(admit);
      this.rebalance();
      if (entry.slot) return;
      timer = setTimeout(() => {
        this.admissions = this.admissions.filter((waiting) => waiting !== admit);
        admit();
      }, this.admissionWaitMs).unref();
    });
  }

  /**
   * Admits the new indexes that fit, and starts closing the least recently used idle ones beyond
   * {@link keepOpen} (and as many more as indexes wait). Run whenever a slot may have changed hands.
   */
  private rebalance(): void {
    while (this.admissions.length > 0 && this.slots < this.capacity) this.admissions.shift()!();
    let excess = this.slots - this.closes + this.admissions.length - this.keepOpen;
    if (excess > 0 && this.idleEntries > 0) {
      for (const [id, entry] of this.entries) {
        if (excess === 0) break;
        if (entry.users > 0) continue;
        this.entries.delete(id);
        this.idleEntries--;
        void this.closeWhenIdle(id, entry);
        excess--;
      }
    }
    // Every slot's index is in use and none is closing: waiting would wait for those operations.
    if (this.closes === 0) while (this.admissions.length > 0) this.admissions.shift()!();
  }

  private freeSlot(entry: Entry<T>): void {
    if (!entry.slot) return;
    entry.slot = false;
    this.slots--;
    this.rebalance();
  }

  private closeWhenIdle(id: string, entry: Entry<T>): Promise<void> {
    const closed =
      entry.users === 0
        ? this.release(id, entry)
        : new Promise<void>((resolve) => (entry.idle = resolve)).then(() => this.release(id, entry));
    const tracked: Promise<void> = closed.finally(() => {
      if (this.closing.get(id) === tracked) this.closing.delete(id);
    });
    this.closing.set(id, tracked);
    return tracked;
  }

  /** Closes an entry nobody uses (so its opening has settled); its slot is free once the close ends. */
  private release(id: string, entry: Entry<T>): Promise<void> {
    const counted = entry.slot;
    if (counted) this.closes++;
    return entry.opening
      .then(
        (index) => index.close(),
        () => undefined, // never opened: nothing to close
      )
      .catch((error: unknown) => {
        try {
          this.onCloseError(id, error);
        } catch {
          // A listener's failure must not become this close's.
        }
      })
      .finally(() => {
        if (counted) this.closes--;
        this.freeSlot(entry);
      });
  }
}
