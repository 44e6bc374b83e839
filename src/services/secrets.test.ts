import { describe, expect, it } from 'vitest';
import { hashApiKey, randomSecret, safeEqual, verifyApiKey } from './secrets.js';

describe('randomSecret', () => {
  it('gives 32 random bytes as 43 base64url characters, never the same twice', () => {
    const secrets = Array.from({ length: 2000 }, () => randomSecret());
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('gives longer secrets when asked', () => {
    expect(Buffer.from(randomSecret(48), 'base64url')).toHaveLength(48);
  });
});

describe('safeEqual', () => {
  it('is true only for equal strings, whatever their lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});

describe('API key hashes', () => {
  it('verify the key they were made from and no other', async () => {
    const hash = await hashApiKey('key-a');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyApiKey('key-a', hash)).toBe(true);
    expect(await verifyApiKey('key-b', hash)).toBe(false);
    expect(await verifyApiKey('key-a', 'not-a-hash')).toBe(false);
  });
});
