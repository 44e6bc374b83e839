/**
 * Vectors as the engine keeps them, in SQLite, in PostgreSQL, waiting for a graph and in the
 * graph itself: 8-bit codes, each component round(x / s) with s = max|x| / 127, followed by s as a
 * little-endian float32 (dimensions + 4 bytes; a 512-dimension vector takes 516 bytes instead of
 * 2,048). It is the layout of the native graph's sq8 space (native/vector-graph/sq8-space.h), so a
 * code decoded and handed to the graph is quantized back to the same code there. Every score is
 * computed from the code (rounding to even, as the native side does), so every node holding the
 * same documents computes the same scores.
 */

/** A vector stored in 8 bits (see the module comment). */
export type VectorCode = Uint8Array;

const MAX_CODE = 127;

/** The code of a vector. */
export function encodeVector(vector: Float32Array): VectorCode {
  const dimensions = vector.length;
  const code = new Uint8Array(dimensions + 4);
  const view = new DataView(code.buffer);
  let largest = 0;
  for (let i = 0; i < dimensions; i++) largest = Math.max(largest, Math.abs(vector[i]));
  const step = largest > 0 ? Math.fround(largest / MAX_CODE) : 1;
  for (let i = 0; i < dimensions; i++) {
    const value = roundHalfEven(Math.fround(vector[i] / step));
    view.setInt8(i, Math.max(-MAX_CODE, Math.min(MAX_CODE, value)));
  }
  view.setFloat32(dimensions, step, true);
  return code;
}

/** The code of a stored blob of an index with `dimensions`: a code as is, an older float32 blob encoded. */
export function storedCode(blob: Uint8Array, dimensions: number): VectorCode {
  if (blob.length === dimensions + 4) return blob;
  if (blob.length !== dimensions * 4) {
    throw new Error(`a stored vector of ${blob.length} bytes does not fit ${dimensions} dimensions`);
  }
  const floats = new Float32Array(dimensions);
  new Uint8Array(floats.buffer).set(blob);
  return encodeVector(floats);
}

/** The vector a code stands for. */
export function decodeVector(code: VectorCode): Float32Array {
  const dimensions = code.length - 4;
  const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
  const step = view.getFloat32(dimensions, true);
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = view.getInt8(i) * step;
  return vector;
}

/** The dot product of a (float) query and a code: the cosine for the unit vectors the engine stores. */
export function codeDot(query: Float32Array, code: VectorCode): number {
  const dimensions = code.length - 4;
  const components = new Int8Array(code.buffer, code.byteOffset, dimensions);
  const step = new DataView(code.buffer, code.byteOffset, code.byteLength).getFloat32(dimensions, true);
  return componentsDot(query, components, 0, dimensions, step);
}

/**
 * The score of a code held as its components (from `offset`) and its step: the query times the
 * components in order, then times the step. Every score the engine compares is computed this way
 * (the native graph repeats it in vector-graph.cc), so it is the same bits wherever the code is held.
 */
export function componentsDot(
  query: Float32Array,
  components: Int8Array,
  offset: number,
  dimensions: number,
  step: number,
): number {
  let sum = 0;
  for (let i = 0; i < dimensions; i++) sum += query[i] * components[offset + i];
  return sum * step;
}

function roundHalfEven(value: number): number {
  const rounded = Math.round(value);
  // Math.round sends halves up; the native side (lrint) sends them to the even neighbour.
  return rounded - value === 0.5 && rounded % 2 !== 0 ? rounded - 1 : rounded;
}
