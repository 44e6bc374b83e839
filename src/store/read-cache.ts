import { boundedCache } from '../services/bounded-cache.js';

/** Values kept at most; past this the least recently used one goes. */
const MAX_ENTRIES = 10_000;

/**
 * Remembers the results of hot reads (account by email, index by id or endpoint, stored usage)
 * for as long as the store's change token stays the same. Any write through this process, or a
 * commit by another process on the same SQLite file, empties it; where the store cannot tell
 * (PostgreSQL with several nodes), nothing is cached. Cached values are shared: never mutate them.
 * Callers keep their key spaces apart with a prefix (`account:`, `index:`).
 */
export class ReadCache {
  // Boxed: lru-cache keeps no undefined values, and "no such row" is worth keeping.
  private readonly entries;
  private token: string | undefined;

  constructor(
    private readonly changeToken: () => string | undefined,
    maxEntries = MAX_ENTRIES,
  ) {
    this.entries = boundedCache<string, { value: unknown }>({ max: maxEntries });
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const token = this.currentToken();
    if (token === undefined) return load();
    const kept = this.entries.get(key);
    if (kept !== undefined) return kept.value as T;
    const value = await load();
    // Keep the value only if nothing was written while it loaded.
    if (this.changeToken() === token) this.entries.set(key, { value });
    return value;
  }

  /** The store's change token, after dropping every value kept under an older one. */
  private currentToken(): string | undefined {
    const token = this.changeToken();
    if (token !== undefined && token !== this.token) {
      this.entries.clear();
      this.token = token;
    }
    return token;
  }
}
