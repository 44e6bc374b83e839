import { describe, expect, it } from 'vitest';
import { BLOCK_SIZE, bitWidth, packBits, packedWords, unpackBits, unpackOne } from './block-codec.js';

describe('block codec', () => {
  it('round-trips every width and block length, whole and one value at a time', () => {
    let seed = 1;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let width = 0; width <= 32; width++) {
      for (const count of [1, 5, 31, 32, 33, 100, BLOCK_SIZE]) {
        const values = new Int32Array(count);
        for (let i = 0; i < count; i++) values[i] = Math.floor(next() * 2 ** width) | 0;
        values[count - 1] = width === 0 ? 0 : (2 ** width - 1) | 0; // the widest value
        const data = new Uint32Array(3 + packedWords(count, width));
        data[0] = 0xdeadbeef; // a neighbour before, untouched
        expect(packBits(values, count, width, data, 1)).toBe(1 + packedWords(count, width));
        expect(data[0]).toBe(0xdeadbeef);
        const out = new Int32Array(count);
        unpackBits(data, 1, count, width, out, false);
        for (let i = 0; i < count; i++) expect(out[i]).toBe((values[i] + 1) | 0);
        for (let i = 0; i < count; i++) expect(unpackOne(data, 1, i, width)).toBe(values[i] >>> 0);
        if (width < 24) {
          unpackBits(data, 1, count, width, out, true, 9);
          let doc = 9;
          for (let i = 0; i < count; i++) {
            doc += values[i] + 1;
            expect(out[i]).toBe(doc);
          }
        }
      }
    }
  });

  it('measures widths', () => {
    expect([0, 1, 2, 3, 255, 256, 0xffffffff].map(bitWidth)).toEqual([0, 1, 2, 2, 8, 9, 32]);
  });
});
