import { type Scored, TopK } from './vector-math.js';

/** Vectors per arena segment: 8 MB at 256 dimensions. */
const SEGMENT_CAPACITY = 8192;

interface Segment {
  vectors: Float32Array;
  labels: Float64Array;
  count: number;
}

interface Slot {
  segment: Segment;
  index: number;
}

/**
 * Vectors committed but not yet in the HNSW graph, searchable exactly. They are copied into
 * contiguous Float32Array segments (adding costs ~0.2 µs; hnswlib's own brute-force index would
 * cost ~19 µs per vector on the write path to copy through N-API) and scanned with an unrolled dot
 * product. Deleting swaps the segment's last vector into the hole, so segments stay dense, and
 * drained segments are released.
 */
export class PendingVectors {
  private readonly segments: Segment[] = [];
  /** Insertion-ordered, so the indexer drains the oldest vectors first. */
  private readonly slots = new Map<number, Slot>();

  constructor(private readonly dimensions: number) {}

  get size(): number {
    return this.slots.size;
  }

  add(label: number, vector: Float32Array): void {
    if (this.slots.has(label)) return;
    let segment = this.segments.at(-1);
    if (!segment || segment.count === SEGMENT_CAPACITY) {
      segment = {
        vectors: new Float32Array(SEGMENT_CAPACITY * this.dimensions),
        labels: new Float64Array(SEGMENT_CAPACITY),
        count: 0,
      };
      this.segments.push(segment);
    }
    const index = segment.count++;
    segment.vectors.set(vector, index * this.dimensions);
    segment.labels[index] = label;
    this.slots.set(label, { segment, index });
  }

  has(label: number): boolean {
    return this.slots.has(label);
  }

  /** A view of the pending vector (valid until the next delete). */
  vector(label: number): Float32Array | undefined {
    const slot = this.slots.get(label);
    if (!slot) return undefined;
    const start = slot.index * this.dimensions;
    return slot.segment.vectors.subarray(start, start + this.dimensions);
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
      segment.vectors.copyWithin(index * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
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
    for (const { vectors, labels, count } of this.segments) {
      for (let row = 0; row < count; row++) {
        if (accept && !accept(labels[row])) continue;
        const offset = row * dims;
        // Four accumulators let the CPU overlap the multiply-adds; ~2x faster than a plain loop.
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let d = 0;
        for (; d + 3 < dims; d += 4) {
          s0 += query[d] * vectors[offset + d];
          s1 += query[d + 1] * vectors[offset + d + 1];
          s2 += query[d + 2] * vectors[offset + d + 2];
          s3 += query[d + 3] * vectors[offset + d + 3];
        }
        for (; d < dims; d++) s0 += query[d] * vectors[offset + d];
        top.push(labels[row], s0 + s1 + s2 + s3);
      }
    }
    return top.sorted();
  }

  clear(): void {
    this.segments.length = 0;
    this.slots.clear();
  }
}
