import { createHmac, randomBytes } from 'node:crypto';
import { boundedCache } from './bounded-cache.js';
import type { Clock } from './clock.js';

/** How long a verified key is trusted without running scrypt again. */
export const VERIFIED_CREDENTIAL_TTL_MS = 60_000;
/** Verified pairs remembered at most; past this the least recently used goes. */
export const MAX_VERIFIED_CREDENTIALS = 10_000;

interface Verified {
  email: string;
  /** The stored scrypt hash the key was verified against. */
  storedHash: string;
}

/**
 * A short-lived memory of (email, API key) pairs that passed scrypt, so a client sending the same
 * key on every request pays for scrypt about once a minute rather than on each one. Nothing
 * changes at rest (the store keeps only scrypt hashes), and memory never holds a key: entries are
 * found by an HMAC-SHA256 of the pair under a random key of this process, which nobody outside it
 * can compute, so looking one up reveals nothing about a key.
 *
 * An entry counts only together with the stored hash it was verified against: callers pass the
 * account's current hash, so a key rotated or an account deleted anywhere stops matching as soon as
 * the caller sees the new row; {@link forget} drops an account's entries at once when this process
 * changes it.
 */
export class VerifiedCredentials {
  private readonly hmacKey = randomBytes(32);
  private readonly entries;

  constructor(clock: Clock, ttlMs = VERIFIED_CREDENTIAL_TTL_MS, maxEntries = MAX_VERIFIED_CREDENTIALS) {
    this.entries = boundedCache<string, Verified>({ max: maxEntries, ttl: ttlMs, clock });
  }

  /** True when this key was verified for `email` against `storedHash` within the TTL. */
  has(email: string, apiKey: string, storedHash: string): boolean {
    const key = this.digest(email, apiKey);
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    if (entry.email !== email || entry.storedHash !== storedHash) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  /** Remembers a key that scrypt just accepted for `email` against `storedHash`. */
  remember(email: string, apiKey: string, storedHash: string): void {
    this.entries.set(this.digest(email, apiKey), { email, storedHash });
  }

  /** Drops what is remembered for `email` (its key changed or the account is gone). */
  forget(email: string): void {
    const keys = [...this.entries.entries()].filter(([, entry]) => entry.email === email).map(([key]) => key);
    for (const key of keys) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private digest(email: string, apiKey: string): string {
    // Length-prefixed so no two (email, key) pairs give the same text.
    return createHmac('sha256', this.hmacKey).update(`${email.length}:${email}:${apiKey}`).digest('base64');
  }
}
