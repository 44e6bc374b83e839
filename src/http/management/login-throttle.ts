import type { Clock } from '../../services/clock.js';

/** Failed logins allowed per one-minute window, for each kind of key. */
export interface LoginThrottleLimits {
  /** Per (account, client address): the brute force of one account from one place. */
  perAccountAddress: number;
  /** Per account over all addresses (a distributed brute force); higher than the pair ceiling. */
  perAccount: number;
  /** Per client address over all accounts (credential stuffing); the highest ceiling. */
  perAddress: number;
}

/** The account and address ceilings as multiples of the per-(account, address) limit. */
export const ACCOUNT_CEILING_FACTOR = 5;
export const ADDRESS_CEILING_FACTOR = 10;

/** Limits derived from the one configured number (SEARCHPLANE_AUTH_FAILURE_LIMIT). */
export function loginThrottleLimits(failureLimit: number): LoginThrottleLimits {
  return {
    perAccountAddress: failureLimit,
    perAccount: failureLimit * ACCOUNT_CEILING_FACTOR,
    perAddress: failureLimit * ADDRESS_CEILING_FACTOR,
  };
}

const WINDOW_MS = 60_000;
/** How long a successful login vouches for its (account, address) pair. */
const TRUSTED_MS = 24 * 3_600_000;
/** Keys tracked per map; beyond it the oldest windows are forgotten first. */
const MAX_TRACKED = 100_000;

/**
 * Failure counts in fixed one-minute windows per key, in a Map whose order is window start order
 * (a new window is re-inserted at the end), so the oldest entries are evicted first when full.
 */
class FailureWindows {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly maxTracked: number,
  ) {}

  /** Milliseconds until `key` is below its limit again (0 when it is). */
  blockedFor(key: string, now: number): number {
    const window = this.windows.get(key);
    if (!window) return 0;
    if (now - window.start >= WINDOW_MS) {
      this.windows.delete(key);
      return 0;
    }
    return window.count >= this.limit ? window.start + WINDOW_MS - now : 0;
  }

  add(key: string, now: number): void {
    const window = this.windows.get(key);
    if (window && now - window.start < WINDOW_MS) {
      window.count++;
      return;
    }
    this.windows.delete(key);
    while (this.windows.size >= this.maxTracked) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { start: now, count: 1 });
  }

  get size(): number {
    return this.windows.size;
  }
}

/**
 * Failed-login throttling that an attacker cannot turn against other users. Failures are counted
 * per (account, address), per account and per address, each in one-minute windows:
 * - exactly `perAccountAddress` failures are allowed for an account from one address; the next
 *   attempt is refused until the window ends (brute force of one account from one place);
 * - past `perAccount` failures from all addresses, the account is refused from every address that
 *   has not logged into it successfully in the last 24 hours (a distributed brute force cannot lock
 *   the owner out of where they work from);
 * - past `perAddress` failures for any accounts, the address is refused for every account it has
 *   not logged into successfully in the last 24 hours.
 * So failures for one account never refuse a correct key for another account from the same
 * address (behind a proxy, every user shares it) until that address reaches the much higher
 * address ceiling, and then only for accounts new to it. State is bounded: at most 100,000 keys
 * per kind, oldest forgotten first.
 */
export class LoginThrottle {
  private readonly pairs: FailureWindows;
  private readonly accounts: FailureWindows;
  private readonly addresses: FailureWindows;
  /** (account, address) pairs with a recent successful login, by key → expiry (ms); oldest first. */
  private readonly trusted = new Map<string, number>();
  /** The last pair's key: a request asks {@link retryAfter}, then {@link recordSuccess}, for one pair. */
  private last: LastPair = { account: '', address: '', key: pairKey('', ''), renewAfter: 0 };

  constructor(
    readonly limits: LoginThrottleLimits,
    private readonly clock: Clock,
    private readonly maxTracked = MAX_TRACKED,
  ) {
    this.pairs = new FailureWindows(limits.perAccountAddress, maxTracked);
    this.accounts = new FailureWindows(limits.perAccount, maxTracked);
    this.addresses = new FailureWindows(limits.perAddress, maxTracked);
  }

  /**
   * Seconds until `account` may be tried from `address` again, or 0 when it may be now. `now`: the
   * clock's time, when the caller has read it already (one read per request).
   */
  retryAfter(account: string, address: string, now = this.clock()): number {
    // No failure recorded since start, or every window pruned (a service not under attack):
    // nothing can refuse, trusted or not.
    if (this.pairs.size === 0 && this.accounts.size === 0 && this.addresses.size === 0) return 0;
    const pair = this.pairKey(account, address);
    let waitMs = this.pairs.blockedFor(pair, now);
    if (!this.isTrusted(pair, now)) {
      waitMs = Math.max(waitMs, this.accounts.blockedFor(account, now), this.addresses.blockedFor(address, now));
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  recordFailure(account: string, address: string): void {
    const now = this.clock();
    this.pairs.add(this.pairKey(account, address), now);
    this.accounts.add(account, now);
    this.addresses.add(address, now);
  }

  /** Remembers that this address knows the account's key (see the class comment). */
  recordSuccess(account: string, address: string, now = this.clock()): void {
    const key = this.pairKey(account, address);
    const last = this.last;
    // A busy client succeeds on every request: its trust is renewed at most once a minute, which
    // keeps the eviction order within a minute of true. Until then, the same pair as the last
    // request needs no lookup at all: only a call for another pair (which replaces `last`) can
    // evict its entry, and isTrusted drops it only once expired, past `renewAfter`.
    if (now < last.renewAfter) return;
    const expiry = now + TRUSTED_MS;
    let stored = this.trusted.get(key) ?? 0;
    if (stored <= expiry - WINDOW_MS) {
      this.trusted.delete(key);
      while (this.trusted.size >= this.maxTracked) this.trusted.delete(this.trusted.keys().next().value!);
      this.trusted.set(key, expiry);
      stored = expiry;
    }
    // Renewed once the stored trust is a minute old.
    last.renewAfter = stored - TRUSTED_MS + WINDOW_MS;
  }

  /** Keys held, per kind (for tests of the bound). */
  get tracked(): { pairs: number; accounts: number; addresses: number; trusted: number } {
    return {
      pairs: this.pairs.size,
      accounts: this.accounts.size,
      addresses: this.addresses.size,
      trusted: this.trusted.size,
    };
  }

  /**
   * The pair's key, reusing the last one for the same pair: comparing two short strings costs less
   * than joining and hashing a new key, twice on every authenticated request.
   */
  private pairKey(account: string, address: string): string {
    const last = this.last;
    if (last.account !== account || last.address !== address)
      this.last = { account, address, key: pairKey(account, address), renewAfter: 0 };
    return this.last.key;
  }

  private isTrusted(pair: string, now: number): boolean {
    const expires = this.trusted.get(pair);
    if (expires === undefined) return false;
    if (expires > now) return true;
    this.trusted.delete(pair);
    return false;
  }
}

interface LastPair {
  account: string;
  address: string;
  key: string;
  /** Before this time (ms), the pair's trust is current and {@link LoginThrottle.recordSuccess} has nothing to do. */
  renewAfter: number;
}

/** Emails never contain a newline (they are checked before they are counted), so the key is unambiguous. */
function pairKey(account: string, address: string): string {
  return `${account}\n${address}`;
}
