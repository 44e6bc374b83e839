import { boundedCache } from '../../services/bounded-cache.js';
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
/** Keys tracked per kind; beyond it the least recently used are forgotten first. */
const MAX_TRACKED = 100_000;

/** Failure counts per key in fixed one-minute windows, each starting at its key's first failure. */
class FailureWindows {
  private readonly windows;

  constructor(
    private readonly limit: number,
    maxTracked: number,
    clock: Clock,
  ) {
    this.windows = boundedCache<string, { count: number }>({ max: maxTracked, ttl: WINDOW_MS, clock });
  }

  /** Milliseconds until `key` is below its limit again (0 when it is). */
  blockedFor(key: string): number {
    const window = this.windows.get(key);
    return window !== undefined && window.count >= this.limit ? this.windows.getRemainingTTL(key) : 0;
  }

  add(key: string): void {
    const window = this.windows.get(key);
    if (window === undefined) this.windows.set(key, { count: 1 });
    else window.count++;
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
 * per kind, least recently used forgotten first.
 */
export class LoginThrottle {
  private readonly pairs: FailureWindows;
  private readonly accounts: FailureWindows;
  private readonly addresses: FailureWindows;
  /** (account, address) pairs with a successful login in the last day. */
  private readonly trusted;

  constructor(
    readonly limits: LoginThrottleLimits,
    clock: Clock,
    maxTracked = MAX_TRACKED,
  ) {
    this.pairs = new FailureWindows(limits.perAccountAddress, maxTracked, clock);
    this.accounts = new FailureWindows(limits.perAccount, maxTracked, clock);
    this.addresses = new FailureWindows(limits.perAddress, maxTracked, clock);
    this.trusted = boundedCache<string, true>({ max: maxTracked, ttl: TRUSTED_MS, clock });
  }

  /** Seconds until `account` may be tried from `address` again, or 0 when it may be now. */
  retryAfter(account: string, address: string): number {
    // Nothing can be refused while no failure is held (an expired one goes when it is next read).
    if (this.pairs.size === 0 && this.accounts.size === 0 && this.addresses.size === 0) return 0;
    const pair = pairKey(account, address);
    let waitMs = this.pairs.blockedFor(pair);
    if (!this.trusted.has(pair)) {
      waitMs = Math.max(waitMs, this.accounts.blockedFor(account), this.addresses.blockedFor(address));
    }
    return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
  }

  recordFailure(account: string, address: string): void {
    this.pairs.add(pairKey(account, address));
    this.accounts.add(account);
    this.addresses.add(address);
  }

  /** Remembers for a day that this address knows the account's key (see the class comment). */
  recordSuccess(account: string, address: string): void {
    this.trusted.set(pairKey(account, address), true);
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
}

/** Emails never contain a newline (they are checked before they are counted), so the key is unambiguous. */
function pairKey(account: string, address: string): string {
  return `${account}\n${address}`;
}
