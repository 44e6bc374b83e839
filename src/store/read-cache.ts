/**
 * Remembers the results of hot reads (account by email, index by id or endpoint, stored usage)
 * for as long as the store's change token stays the same. Any write through this process, or a
 * commit by another process on the same SQLite file, empties it; where the store cannot tell
 * (PostgreSQL with several nodes), nothing is cached. Cached values are shared: never mutate them.
 */
export class ReadCache {
  private readonly entries = new Map<string, unknown>();
  private token: string | undefined;

  constructor(
    private readonly changeToken: () => string | undefined,
    private readonly maxEntries = 10_000,
  ) {}

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const token = this.currentToken();
    if (token === undefined) return load();
    const kept = this.entries.get(key);
    if (kept !== undefined || this.entries.has(key)) return kept as T;
    const value = await load();
    // Keep the value only if nothing was written while it loaded.
    if (this.changeToken() === token) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /**
   * The value kept for `key`, synchronously, for hot paths that can skip a promise when it is
   * there; undefined when nothing is kept (or `undefined` is), and then {@link get} decides.
   */
  peek<T>(key: string): T | undefined {
    return this.currentToken() === undefined ? undefined : (this.entries.get(key) as T | undefined);
  }

  /** The store's change token, after dropping every entry kept under an older one. */
  private currentToken(): string | undefined {
    const token = this.changeToken();
    if (token !== undefined && token !== this.token) {
      this.entries.clear();
      this.token = token;
    }
    return token;
  }
}
