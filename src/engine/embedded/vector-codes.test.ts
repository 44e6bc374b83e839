import { describe, expect, it } from 'vitest';
import { syntheticVector } from '../test-fixtures.js';
import { codeDot, decodeVector, encodeVector, storedCode } from './vector-codes.js';
import { dot } from './vector-math.js';

describe('vector codes', () => {
  it('keep a unit vector in dimensions + 4 bytes, within half a step per component', () => {
    const vector = syntheticVector('d7', 512);
    const code = encodeVector(vector);
    expect(code.length).toBe(516);
    const decoded = decodeVector(code);
    const largest = Math.max(...Array.from(vector, Math.abs));
    const step = largest / 127;
    for (let i = 0; i < 512; i++) expect(Math.abs(decoded[i] - vector[i])).toBeLessThanOrEqual(step / 2 + 1e-7);
    // The largest component is ±127 steps exactly.
    expect(Math.max(...Array.from(decoded, Math.abs))).toBeCloseTo(largest, 6);
  });

  it('score like the vectors they stand for, and encode their own decoding to themselves', () => {
    const query = syntheticVector('q3', 256);
    for (let d = 0; d < 50; d++) {
      const vector = syntheticVector(`d${d}`, 256);
      const code = encodeVector(vector);
      expect(codeDot(query, code)).toBeCloseTo(dot(query, vector), 2);
      expect(codeDot(query, code)).toBeCloseTo(dot(query, decodeVector(code)), 6);
      expect(Array.from(encodeVector(decodeVector(code)))).toEqual(Array.from(code));
    }
  });

  it('round halves to even, as the native graph does', () => {
    // Components 127 (the largest), 0.5 and 1.5 and -2.5 steps: 0.5 → 0, 1.5 → 2, -2.5 → -2.
    const code = encodeVector(Float32Array.from([1, 0.5 / 127, 1.5 / 127, -2.5 / 127]));
    expect(Array.from(new Int8Array(code.buffer, 0, 4))).toEqual([127, 0, 2, -2]);
    expect(Array.from(encodeVector(new Float32Array(3)).subarray(0, 3))).toEqual([0, 0, 0]);
  });

  it('reads an older float32 blob as the code of its vector, and refuses a blob of other dimensions', () => {
    const vector = syntheticVector('d1', 64);
    const blob = new Uint8Array(vector.buffer.slice(0));
    expect(Array.from(storedCode(blob, 64))).toEqual(Array.from(encodeVector(vector)));
    const code = encodeVector(vector);
    expect(storedCode(code, 64)).toBe(code);
    expect(() => storedCode(code, 32)).toThrow(/does not fit/);
  });
});
