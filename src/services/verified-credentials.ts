import * as crypto from 'node:crypto';
import type { Clock } from './clock.js';
import { randomSecret } from './secrets.js';
import { SipHasher } from './siphash.js';

/** How long a verified key is trusted without running scrypt again. */
export const VERIFIED_CREDENTIAL_TTL_MS = 60_000;
/** Accounts remembered at most; past this the oldest entry goes. */
export const MAX_VERIFIED_CREDENTIALS = 10_000;

interface Verified {
  /** Keyed SHA-256 of email and key (never the key itself), base64. */
  digest: string;
  /** The stored scrypt hash the key was verified against. */
  storedHash: string;
  expiresAt: number;
}

// One-shot hashing to a string (Node ≥ 20.12) costs a third of a Hash object with a Buffer
// digest, on every authenticated request; the fallback gives the same digest.
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64')
    : (text) => crypto.createHash('sha256').update(text).digest('base64');

/** A whole Authorization header that carried a verified key (see {@link VerifiedCredentials.header}). */
export interface VerifiedHeader {
  /** The email as the header gave it (login throttling counts by it). */
  login: string;
  /** The account's email. */
  email: string;
  /** The stored scrypt hash the key was verified against. */
  storedHash: string;
  expiresAt: number;
}

interface HeaderEntry extends VerifiedHeader {
  /** The low 32 bits of the header's tag: the map key holds its high 32 and only the top 21 of these. */
  tagLow: number;
}

/** 2^21: the high 32 bits of a 64-bit tag times this, plus its top 21 low bits, is a safe integer. */
const TAG_HIGH_SCALE = 0x200000;

/**
 * A short-lived memory of API keys that passed scrypt, so a client sending the same key on every
 * request pays for scrypt once a minute instead of on each one. Nothing changes at rest (the store
 * keeps only scrypt hashes), and memory never holds a key: only, for at most the TTL, a SHA-256 of
 * it keyed with a random secret of this process (useless outside it, and not reversible without
 * that secret), compared in constant time. A whole Authorization header is remembered as its
 * SipHash-2-4 tag under a random key of this process: a 64-bit pseudorandom function of the header
 * that nobody without that key can compute. A forged header can only match by chance: each attempt
 * hits one of the n remembered headers with probability n / 2^64, which at the full 10,000 entries
 * and 40,000 requests a second is once in about 1,400 years, for a key that changes at every
 * restart and entries that live a minute. (Headers that do not parse as Basic are refused without
 * counting as failed logins, so the throttle does not slow such attempts; the tag's length is what
 * bounds them.) This is the busiest path (a client repeating its header), where a SHA-256 call
 * cost a tenth of the request (see {@link SipHasher}).
 *
 * An entry counts only together with the stored hash it was verified against: callers pass the
 * account's current hash, so a key rotated or an account deleted anywhere stops matching as soon as
 * the caller sees the new row. {@link forget} drops an entry at once when this process changes it.
 */
export class VerifiedCredentials {
  private readonly secret = randomSecret();
  private readonly entries = new Map<string, Verified>();
  /** By the tag of the whole header: a repeated header is known from one SipHash, unparsed. */
  private readonly headers = new Map<number, HeaderEntry>();
  private readonly headerHasher = new SipHasher();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = VERIFIED_CREDENTIAL_TTL_MS,
    private readonly maxEntries = MAX_VERIFIED_CREDENTIALS,
  ) {}

  /** True when this key was verified for `email` against `storedHash` within the TTL. */
  has(email: string, apiKey: string, storedHash: string): boolean {
    const entry = this.entries.get(email);
    if (!entry) return false;
    if (entry.storedHash !== storedHash || this.clock() >= entry.expiresAt) {
      this.entries.delete(email);
      return false;
    }
    // A wrong key leaves the entry alone: failed guesses must not cost the owner a new scrypt.
    return constantTimeEqual(entry.digest, this.digest(email, apiKey));
  }

  /** Remembers a key that scrypt just accepted for `email` against `storedHash`. */
  remember(email: string, apiKey: string, storedHash: string): void {
    this.entries.delete(email);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(email, {
      digest: this.digest(email, apiKey),
      storedHash,
      expiresAt: this.clock() + this.ttlMs,
    });
  }

  /**
   * The entry of an Authorization header that carried a key verified within the TTL, or undefined.
   * Looked up by its keyed tag: the map's comparison of tags takes time that depends on them, but
   * nobody without this process's key can compute one, so it reveals nothing about a key. The
   * caller still compares `storedHash` with the account's current hash, as for {@link has}.
   * `now`: the clock's time, when the caller has read it already.
   */
  header(header: string, now = this.clock()): VerifiedHeader | undefined {
    const key = this.headerKey(header);
    if (key === undefined) return undefined;
    const entry = this.headers.get(key);
    if (entry === undefined || entry.tagLow !== this.headerHasher.lo) return undefined;
    if (now >= entry.expiresAt) {
      this.headers.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Remembers a header whose key scrypt (or {@link has}) just accepted for `email` against `storedHash`. */
  rememberHeader(header: string, login: string, email: string, storedHash: string): void {
    const key = this.headerKey(header);
    // Only text Node's parser can give (one byte per character) has a tag; other headers take the
    // full path every time.
    if (key === undefined) return;
    const tagLow = this.headerHasher.lo;
    this.headers.delete(key);
    if (this.headers.size >= this.maxEntries) this.headers.delete(this.headers.keys().next().value as number);
    this.headers.set(key, { login, email, storedHash, expiresAt: this.clock() + this.ttlMs, tagLow });
  }

  /** Drops what is remembered for `email` (its key changed or the account is gone). */
  forget(email: string): void {
    this.entries.delete(email);
    // A key rotated, an account deleted, or a login naming no account (which runs a scrypt, a
    // thousand times this scan of the bounded map).
    for (const [key, entry] of this.headers) if (entry.email === email) this.headers.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Headers remembered (for tests of the bound). */
  get headerCount(): number {
    return this.headers.size;
  }

  /**
   * The map key of a header's 64-bit tag (its high 32 bits and the top 21 of the low ones, a safe
   * integer; the low 32 bits stay in the hasher for the caller), or undefined when it has none.
   */
  private headerKey(header: string): number | undefined {
    const hasher = this.headerHasher;
    return hasher.hash(header) ? hasher.hi * TAG_HIGH_SCALE + (hasher.lo >>> 11) : undefined;
  }

  private digest(email: string, apiKey: string): string {
    // Length-prefixed so no two (email, key) pairs give the same text.
    return sha256(`${this.secret}${email.length}:${email}:${apiKey}`);
  }
}

/**
 * Compares two digests of the same length in time independent of where they differ (every
 * character is visited; no early exit), without the Buffers `timingSafeEqual` would need.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
