/**
 * Remembers the results of hot reads (account by email, index by id or endpoint, stored usage)
 * for as long as the store's change token stays the same. Any write through this process, or a
 * commit by another process on the same SQLite file, empties it; where the store cannot tell
 * (PostgreSQL with several nodes), nothing is cached. Cached values are shared: never mutate them.
 *
 * Values live in scopes, one key space each ({@link scope}), so a hot lookup is keyed by a string
 * it already has (an email, an id) instead of a prefixed one built, hashed and compared on every
 * request; {@link get} uses a scope of its own.
 */
export class ReadCache {
  private readonly scopes: CacheScope<unknown>[] = [];
  private readonly general: CacheScope<unknown>;
  private token: string | undefined;

  constructor(
    private readonly changeToken: () => string | undefined,
    private readonly maxEntries = 10_000,
  ) {
    this.general = this.scope();
  }

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.general.get(key, load) as Promise<T>;
  }

  /** A key space of its own (at most `maxEntries` values), emptied with the rest. */
  scope<T>(): CacheScope<T> {
    const scope = new CacheScope<T>(this, this.maxEntries);
    this.scopes.push(scope as CacheScope<unknown>);
    return scope;
  }

  /** The store's change token, after dropping every value kept under an older one. */
  currentToken(): string | undefined {
    const token = this.changeToken();
    if (token !== undefined && token !== this.token) {
      for (const scope of this.scopes) scope.clear();
      this.token = token;
    }
    return token;
  }

  /** The store's change token as it is now (without emptying anything). */
  tokenNow(): string | undefined {
    return this.changeToken();
  }
}

/** One key space of a {@link ReadCache}. */
export class CacheScope<T> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly cache: ReadCache,
    private readonly maxEntries: number,
  ) {}

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const token = this.cache.currentToken();
    if (token === undefined) return load();
    const kept = this.entries.get(key);
    if (kept !== undefined || this.entries.has(key)) return kept as T;
    const value = await load();
    // Keep the value only if nothing was written while it loaded.
    if (this.cache.tokenNow() === token) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /**
   * The value kept for `key`, synchronously, for hot paths that can skip a promise when it is
   * there; undefined when nothing is kept (or `undefined` is), and then {@link get} decides.
   */
  peek(key: string): T | undefined {
    return this.cache.currentToken() === undefined ? undefined : this.entries.get(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
