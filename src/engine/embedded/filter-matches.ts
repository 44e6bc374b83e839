import { filterLabels } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import type { SqlFragment } from './filter-sql.js';

interface Entry {
  nsId: number;
  filter: SqlFragment;
  labels: Set<number>;
}

/** Labels kept in one index's cached match sets together, at most (a Set costs tens of bytes a label). */
export const MAX_CACHED_LABELS = 1_000_000;

/**
 * Which documents of a namespace match a filter. Computing that is a scan of the namespace
 * (a read of every document of the namespace), so results are kept for the most recently used
 * filters and maintained on every write (removed labels dropped, added labels checked with one
 * small query) rather than invalidated, which keeps repeated filters cheap under writes too. The
 * cache is bounded in filters and in labels: a few broad filters over a large namespace must not
 * hold the namespace's labels several times over.
 */
export class FilterMatches {
  /** Map order doubles as LRU order. */
  private readonly entries = new Map<string, Entry>();
  private labelCount = 0;

  constructor(
    private readonly store: DocumentStore,
    private readonly capacity = 8,
    private readonly maxLabels = MAX_CACHED_LABELS,
  ) {}

  /** Labels held by the cached sets now (for tests of the bound). */
  get cachedLabels(): number {
    return this.labelCount;
  }

  /** Labels of the namespace's documents matching `filter` (keyed by its source text). */
  get(nsId: number, source: string, filter: SqlFragment): Set<number> {
    const key = `${nsId}\u0000${source}`;
    const cached = this.entries.get(key);
    if (cached) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.labels;
    }
    const labels = new Set(filterLabels(this.store, nsId, filter));
    if (labels.size > this.maxLabels) return labels; // computed for this search only
    this.entries.set(key, { nsId, filter, labels });
    this.labelCount += labels.size;
    this.trim();
    return labels;
  }

  /** Keeps cached sets exact after a committed write to the namespace. */
  changed(nsId: number, added: number[], removed: number[]): void {
    for (const entry of this.entries.values()) {
      if (entry.nsId !== nsId) continue;
      for (const label of removed) if (entry.labels.delete(label)) this.labelCount--;
      if (added.length === 0) continue;
      const matching = this.store.labels(
        `SELECT label FROM documents d WHERE d.label IN (SELECT value FROM json_each(?)) AND (${entry.filter.sql})`,
        JSON.stringify(added),
        ...entry.filter.params,
      );
      for (const label of matching) {
        if (entry.labels.has(label)) continue;
        entry.labels.add(label);
        this.labelCount++;
      }
    }
    // Writes may grow the sets past the bound.
    this.trim();
  }

  /** Drops the namespace's entries (reset, deleteNamespace). */
  forget(nsId: number): void {
    for (const [key, entry] of this.entries) if (entry.nsId === nsId) this.drop(key);
  }

  /** Drops the least recently used entries until both bounds hold. */
  private trim(): void {
    while (this.entries.size > this.capacity || (this.labelCount > this.maxLabels && this.entries.size > 0)) {
      this.drop(this.entries.keys().next().value!);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.labelCount -= entry.labels.size;
  }
}
