import { componentsDot, type VectorCode } from './vector-codes.js';
import { bestFirst, type Scored, TopK } from './vector-math.js';

/** Vectors per arena segment: 4 MB at 512 dimensions. */
const SEGMENT_CAPACITY = 8192;

interface Segment {
  /** The codes' 8-bit components, vector after vector. */
  components: Int8Array;
  /** Each code's scale. */
  steps: Float32Array;
  labels: Float64Array;
  count: number;
}

interface Slot {
  segment: Segment;
  index: number;
}

/**
 * Vectors committed but not yet in the HNSW graph, as their 8-bit codes (vector-codes.ts),
 * searchable exactly. They are copied into contiguous segments (adding is a copy; hnswlib's own
 * brute-force index would cost far more per vector on the write path to copy through N-API) and
 * scanned with an unrolled dot product. Deleting swaps the segment's last vector into the hole, so
 * segments stay dense, and drained segments are released.
 */
export class PendingVectors {
  private readonly segments: Segment[] = [];
  /** Insertion-ordered, so the indexer drains the oldest vectors first. */
  private readonly slots = new Map<number, Slot>();

  constructor(private readonly dimensions: number) {}

  get size(): number {
    return this.slots.size;
  }

  add(label: number, code: VectorCode): void {
    if (this.slots.has(label)) return;
    let segment = this.segments.at(-1);
    if (!segment || segment.count === SEGMENT_CAPACITY) {
      segment = {
        components: new Int8Array(SEGMENT_CAPACITY * this.dimensions),
        steps: new Float32Array(SEGMENT_CAPACITY),
        labels: new Float64Array(SEGMENT_CAPACITY),
        count: 0,
      };
      this.segments.push(segment);
    }
    const index = segment.count++;
    const dims = this.dimensions;
    segment.components.set(new Int8Array(code.buffer, code.byteOffset, dims), index * dims);
    segment.steps[index] = new DataView(code.buffer, code.byteOffset, code.byteLength).getFloat32(dims, true);
    segment.labels[index] = label;
    this.slots.set(label, { segment, index });
  }

  has(label: number): boolean {
    return this.slots.has(label);
  }

  /** Writes the pending vector (decoded) into `out` at `offset`; returns whether it is pending. */
  decodeInto(label: number, out: Float32Array, offset: number): boolean {
    const slot = this.slots.get(label);
    if (!slot) return false;
    const { components, steps } = slot.segment;
    const start = slot.index * this.dimensions;
    const step = steps[slot.index];
    for (let i = 0; i < this.dimensions; i++) out[offset + i] = components[start + i] * step;
    return true;
  }

  /** Removes the label if pending; returns whether it was. */
  delete(label: number): boolean {
    const slot = this.slots.get(label);
    if (!slot) return false;
    this.slots.delete(label);
    const { segment, index } = slot;
    const last = --segment.count;
    if (index !== last) {
      const movedLabel = segment.labels[last];
      segment.components.copyWithin(index * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      segment.steps[index] = segment.steps[last];
      segment.labels[index] = movedLabel;
      this.slots.get(movedLabel)!.index = index; // mutating keeps the moved label's insertion order
    }
    if (segment.count === 0 && segment !== this.segments.at(-1))
      this.segments.splice(this.segments.indexOf(segment), 1);
    return true;
  }

  /** The oldest `count` pending labels. */
  oldest(count: number): number[] {
    const labels: number[] = [];
    for (const label of this.slots.keys()) {
      if (labels.length === count) break;
      labels.push(label);
    }
    return labels;
  }

  /** Exact top-k by cosine among the accepted pending vectors, best first. */
  nearest(query: Float32Array, k: number, accept?: (label: number) => boolean): Scored[] {
    const top = new TopK(k);
    const dims = this.dimensions;
    for (const { components, steps, labels, count } of this.segments) {
      for (let row = 0; row < count; row++) {
        if (accept && !accept(labels[row])) continue;
        const offset = row * dims;
        // Four accumulators let the CPU overlap the multiply-adds.
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let d = 0;
        for (; d + 3 < dims; d += 4) {
          s0 += query[d] * components[offset + d];
          s1 += query[d + 1] * components[offset + d + 1];
          s2 += query[d + 2] * components[offset + d + 2];
          s3 += query[d + 3] * components[offset + d + 3];
        }
        for (; d < dims; d++) s0 += query[d] * components[offset + d];
        top.push(labels[row], (s0 + s1 + s2 + s3) * steps[row]);
      }
    }
    // The winners' scores again in codeDot's order, which the graph and SQLite's codes score in.
    return top
      .sorted()
      .map(({ label }) => ({ label, score: this.score(label, query)! }))
      .sort(bestFirst);
  }

  /** The pending vector's cosine with `query` (as codeDot scores codes); undefined when the label is not pending. */
  score(label: number, query: Float32Array): number | undefined {
    const slot = this.slots.get(label);
    if (!slot) return undefined;
    const { components, steps } = slot.segment;
    return componentsDot(query, components, slot.index * this.dimensions, this.dimensions, steps[slot.index]);
  }

  clear(): void {
    this.segments.length = 0;
    this.slots.clear();
  }
}
