type Growable = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** `to` (a larger array of the same type) holding `from`'s values at its start. */
export function grow<T extends Growable>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
