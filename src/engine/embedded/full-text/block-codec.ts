/*
 * Frame-of-reference bit packing of posting blocks: the values of a block are written with the
 * bit width of the largest, little-endian into 32-bit words. A full block of 128 values at width
 * `w` takes exactly `4w` words, so blocks stay word-aligned without padding, and decoding is a
 * branch-light loop of shifts (no per-byte continuation tests as with a variable-byte code).
 */

/** Postings per block: the unit of compression, skipping and block-max bounds. */
export const BLOCK_SIZE = 128;

/** Bits needed to write `value` (a non-negative 32-bit integer); 0 for 0. */
export function bitWidth(value: number): number {
  return 32 - Math.clz32(value);
}

/** 32-bit words that `count` values of `width` bits take. */
export function packedWords(count: number, width: number): number {
  return (count * width + 31) >>> 5;
}

/**
 * Writes the first `count` of `values` (each below 2^width) at `width` bits into `out` from word
 * `offset`; returns the word after the last one written.
 */
export function packBits(values: Int32Array, count: number, width: number, out: Uint32Array, offset: number): number {
  if (width === 0) return offset;
  let o = offset;
  let word = 0;
  let used = 0;
  for (let i = 0; i < count; i++) {
    const value = values[i];
    word |= value << used;
    used += width;
    if (used >= 32) {
      out[o++] = word;
      used -= 32;
      word = used > 0 ? value >>> (width - used) : 0;
    }
  }
  if (used > 0) out[o++] = word;
  return o;
}

/**
 * Reads `count` values of `width` bits from `data` at word `offset` (see {@link packBits}) into
 * `out`, each plus one; with `cumulative`, as the ascending numbers they are the gaps of: each
 * the previous one (`previous` for the first) plus its value plus one.
 */
export function unpackBits(
  data: Uint32Array,
  offset: number,
  count: number,
  width: number,
  out: Int32Array,
  cumulative: boolean,
  previous = 0,
): void {
  const mask = 0xffffffff >>> (32 - width);
  let o = offset;
  let word = width > 0 ? data[o] : 0;
  let used = 0;
  let sum = previous;
  for (let i = 0; i < count; i++) {
    let value = 0;
    if (width > 0) {
      value = word >>> used;
      used += width;
      if (used >= 32) {
        used -= 32;
        word = data[++o];
        if (used > 0) value |= word << (width - used);
      }
      value &= mask;
    }
    if (cumulative) {
      sum += value + 1;
      out[i] = sum;
    } else {
      out[i] = value + 1;
    }
  }
}

/** Value `index` of those packed at `width` bits from word `offset`. */
export function unpackOne(data: Uint32Array, offset: number, index: number, width: number): number {
  if (width === 0) return 0;
  const bit = index * width;
  const o = offset + (bit >>> 5);
  const shift = bit & 31;
  let value = data[o] >>> shift;
  if (shift + width > 32) value |= data[o + 1] << (32 - shift);
  return (value & (0xffffffff >>> (32 - width))) >>> 0;
}
