import { randomBytes, randomFillSync, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

/**
 * Random bytes drawn from OpenSSL a pool at a time: each call to OpenSSL's generator costs about
 * 2 µs in a loop and 10–15 µs between requests (locks, provider dispatch, cold caches), and an
 * index create made two of them, 7% of its server CPU (issue #11). Bytes are wiped from the pool
 * as they are handed out. The price: until drawn, the next few dozen secrets sit in this process's
 * memory, which already holds the tokens of every index it has cached, so what can read the one
 * can read the other; the pool is kept small (1 KB, 32 secrets of 32 bytes) all the same.
 */
export class RandomPool {
  private used: number;

  constructor(
    private readonly pool: Buffer = Buffer.allocUnsafeSlow(1024),
    private readonly fill: (buffer: Buffer) => void = randomFillSync,
  ) {
    this.used = pool.length;
  }

  /** `bytes` (a positive integer) fresh random bytes as base64url text without padding. */
  base64url(bytes: number): string {
    if (!Number.isSafeInteger(bytes) || bytes < 1) throw new RangeError(`Cannot draw ${bytes} random bytes`);
    if (bytes > this.pool.length) return randomBytes(bytes).toString('base64url');
    if (this.used + bytes > this.pool.length) {
      this.fill(this.pool);
      this.used = 0;
    }
    const part = this.pool.subarray(this.used, this.used + bytes);
    this.used += bytes;
    const text = part.toString('base64url');
    part.fill(0);
    return text;
  }
}

const secrets = new RandomPool();

/** A random secret of `bytes` bytes (≥ 32 by default), base64url without padding. */
export function randomSecret(bytes = 32): string {
  return secrets.base64url(bytes);
}

/** Constant-time string equality (lengths may leak, contents do not). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** Hashes an API key with scrypt and a random salt; the result is self-describing. */
export async function hashApiKey(apiKey: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(apiKey, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Checks a key against a stored hash in constant time; false for any malformed hash. */
export async function verifyApiKey(apiKey: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(apiKey, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
