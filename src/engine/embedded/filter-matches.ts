import { filterLabels } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import type { SqlFragment } from './filter-sql.js';

interface Entry {
  nsId: number;
  filter: SqlFragment;
  labels: Set<number>;
}

/**
 * Which documents of a namespace match a filter. Computing that is a scan of the namespace
 * (a read of every document of the namespace), so results are kept for the most recently used
 * filters and maintained on every write (removed labels dropped, added labels checked with one
 * small query) rather than invalidated, which keeps repeated filters cheap under writes too.
 */
export class FilterMatches {
  /** Map order doubles as LRU order. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: DocumentStore,
    private readonly capacity = 8,
  ) {}

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
    this.entries.set(key, { nsId, filter, labels });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return labels;
  }

  /** Keeps cached sets exact after a committed write to the namespace. */
  changed(nsId: number, added: number[], removed: number[]): void {
    for (const entry of this.entries.values()) {
      if (entry.nsId !== nsId) continue;
      for (const label of removed) entry.labels.delete(label);
      if (added.length === 0) continue;
      const matching = this.store.labels(
        `SELECT label FROM documents d WHERE d.label IN (SELECT value FROM json_each(?)) AND (${entry.filter.sql})`,
        JSON.stringify(added),
        ...entry.filter.params,
      );
      for (const label of matching) entry.labels.add(label);
    }
  }

  /** Drops the namespace's entries (reset, deleteNamespace). */
  forget(nsId: number): void {
    for (const [key, entry] of this.entries) if (entry.nsId === nsId) this.entries.delete(key);
  }
}
