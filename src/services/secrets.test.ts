import { describe, expect, it } from 'vitest';
import { RandomPool, randomSecret } from './secrets.js';

describe('randomSecret', () => {
  it('gives 32 random bytes as 43 base64url characters, never the same twice', () => {
    const secrets = Array.from({ length: 2000 }, () => randomSecret());
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('gives longer secrets when asked, including ones larger than the pool', () => {
    expect(Buffer.from(randomSecret(48), 'base64url')).toHaveLength(48);
    expect(Buffer.from(randomSecret(10_000), 'base64url')).toHaveLength(10_000);
  });
});

describe('RandomPool', () => {
  /** A pool of `size` bytes whose every fill writes 1, 2, 3… continuing from the last fill. */
  const counting = (size: number) => {
    const pool = Buffer.alloc(size);
    let next = 0;
    let fills = 0;
    const source = new RandomPool(pool, (buffer) => {
      fills++;
      for (let i = 0; i < buffer.length; i++) buffer[i] = ++next & 0xff;
    });
    return { pool, source, fills: () => fills };
  };

  it('hands out the bytes of one fill in order and refills when they run out', () => {
    const { source, fills } = counting(8);
    expect(fills()).toBe(0);
    expect(source.base64url(3)).toBe(Buffer.from([1, 2, 3]).toString('base64url'));
    expect(source.base64url(3)).toBe(Buffer.from([4, 5, 6]).toString('base64url'));
    expect(fills()).toBe(1);
    // Two bytes left: not enough for three, so a fresh fill (9, 10, …) is used from its start.
    expect(source.base64url(3)).toBe(Buffer.from([9, 10, 11]).toString('base64url'));
    expect(fills()).toBe(2);
  });

  it('wipes the bytes it hands out from the pool', () => {
    const { pool, source } = counting(8);
    source.base64url(3);
    expect([...pool]).toEqual([0, 0, 0, 4, 5, 6, 7, 8]);
    source.base64url(5);
    expect([...pool]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('refuses a size that is not a positive integer, leaving the pool alone', () => {
    const { pool, source, fills } = counting(8);
    for (const size of [0, -3, 2.5, Number.NaN]) expect(() => source.base64url(size)).toThrow(RangeError);
    expect(fills()).toBe(0);
    expect(source.base64url(2)).toBe(Buffer.from([1, 2]).toString('base64url'));
    expect([...pool]).toEqual([0, 0, 3, 4, 5, 6, 7, 8]);
  });

  it('draws a request larger than the pool directly, leaving the pool alone', () => {
    const { pool, source, fills } = counting(8);
    expect(Buffer.from(source.base64url(9), 'base64url')).toHaveLength(9);
    expect(fills()).toBe(0);
    expect([...pool]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
