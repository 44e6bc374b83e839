import { AppError } from '../../errors.js';

interface Entry<T> {
  opening: Promise<T>;
  users: number;
  /** Called when the last user releases the entry (set by a close waiting for that). */
  idle?: () => void;
}

/** Ids of dropped indexes remembered, so a late request cannot re-create their files. */
const DROPPED_MEMORY = 10_000;

/**
 * The indexes open on this node: at most `capacity` stay open while idle (least recently used
 * closes first), so thousands of indexes cost neither thousands of file descriptors nor their
 * memory. An index is never closed while an operation uses it; when every open index is in use the
 * cap is exceeded until they are released. Reopening waits for a previous close of the same index,
 * and a dropped index cannot be reopened.
 *
 * An index being closed still holds its descriptors (its database stays open while its files are
 * written), so it counts against the capacity until its close ends: a new index opens once the
 * open and the closing ones fit, or once nothing is closing. Without this, a burst of requests to
 * many indexes piled up closes faster than they finished, and the process ran out of descriptors.
 */
export class OpenIndexes<T extends { close(): Promise<void> }> {
  /** Map order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry<T>>();
  private readonly closing = new Map<string, Promise<void>>();
  private readonly dropped = new Set<string>();
  private readonly removals = new Map<string, Promise<void>>();
  /** Closes under way (their index's users are gone), which still hold the index's descriptors. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(
    private readonly capacity: number,
    private readonly openIndex: (id: string) => Promise<T>,
    /** Hears about an index that failed to close (its files are still consistent on disk). */
    private readonly onCloseError: (id: string, error: unknown) => void,
  ) {}

  /** Runs `work` on the open index (opening it first if needed); it stays open meanwhile. */
  async use<R>(id: string, work: (index: T) => Promise<R>): Promise<R> {
    const entry = this.acquire(id);
    try {
      return await work(await entry.opening);
    } finally {
      if (--entry.users === 0) entry.idle?.();
      this.evict();
    }
  }

  /** The open indexes (for statistics); those still opening are skipped. */
  async openNow(): Promise<T[]> {
    const settled = await Promise.all([...this.entries.values()].map((entry) => entry.opening.catch(() => undefined)));
    return settled.filter((index) => index !== undefined) as T[];
  }

  /** The index if it is open (or opening), without opening it or changing its recency. */
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
    await Promise.all(all.map(([id, entry]) => this.closeWhenIdle(id, entry)));
    await Promise.all([...this.closing.values()]);
  }

  private acquire(id: string): Entry<T> {
    if (this.dropped.has(id)) throw new AppError('index_not_found', 'Search index not found');
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id); // re-inserted: most recently used
      this.entries.set(id, entry);
      entry.users++;
      return entry;
    }
    const previousClose = this.closing.get(id);
    const created = { users: 1 } as Entry<T>;
    this.entries.set(id, created);
    // Now rather than after this use: these closes make the room the new index waits for.
    this.evict();
    created.opening = this.roomToOpen(previousClose).then(() => this.openIndex(id));
    created.opening.catch(() => {
      if (this.entries.get(id) === created) this.entries.delete(id);
    });
    return created;
  }

  /** Waits for a close of the same index, then for the open and closing indexes to fit the capacity. */
  private async roomToOpen(previousClose: Promise<void> | undefined): Promise<void> {
    await previousClose;
    while (this.releasing.size > 0 && this.entries.size + this.releasing.size > this.capacity) {
      await Promise.race(this.releasing);
    }
  }

  private evict(): void {
    if (this.entries.size <= this.capacity) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      if (entry.users > 0) continue;
      this.entries.delete(id);
      void this.closeWhenIdle(id, entry);
    }
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

  /**
   * Closes an entry nobody uses (so its opening has settled). The close counts against the
   * capacity from now until it ends; an index that failed to open has nothing to close.
   */
  private release(id: string, entry: Entry<T>): Promise<void> {
    const released: Promise<void> = entry.opening
      .then(
        (index) => index.close(),
        () => undefined,
      )
      .catch((error: unknown) => this.onCloseError(id, error))
      .finally(() => this.releasing.delete(released));
    this.releasing.add(released);
    return released;
  }
}
