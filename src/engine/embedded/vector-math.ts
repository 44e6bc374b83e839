/** Dot product; equals cosine similarity for the L2-normalized vectors the engine stores. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Scales the vector to unit length in place (zero vectors stay zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  }
  return vector;
}

/** The little-endian bytes of a vector, for a SQLite BLOB. */
export function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A vector from a SQLite BLOB; copies because pooled Buffers are not always 4-byte aligned. */
export function blobToVector(blob: Buffer): Float32Array {
  const vector = new Float32Array(blob.byteLength / 4);
  new Uint8Array(vector.buffer).set(blob);
  return vector;
}

/** A label with a similarity or score. */
export interface Scored {
  label: number;
  score: number;
}

/** Whether `a` ranks before `b`: higher score first, then the lower (older) label, so results are deterministic. */
export function ranksBefore(a: Scored, b: Scored): boolean {
  return a.score > b.score || (a.score === b.score && a.label < b.label);
}

/** Sort comparator for best-first order (see {@link ranksBefore}). */
export function bestFirst(a: Scored, b: Scored): number {
  return b.score - a.score || a.label - b.label;
}

/** Keeps the `k` best items seen (min-heap, ties by label), for exact scans over many vectors. */
export class TopK {
  private readonly heap: Scored[] = [];

  constructor(private readonly k: number) {}

  /** Whether `k` items are held (from then on, {@link minScore} is the bar to pass). */
  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The lowest score held (the k-th best once full). */
  get minScore(): number {
    return this.heap[0]?.score ?? Number.NEGATIVE_INFINITY;
  }

  push(label: number, score: number): void {
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push({ label, score });
      this.siftUp(heap.length - 1);
    } else if (this.k > 0 && ranksBefore({ label, score }, heap[0])) {
      heap[0] = { label, score };
      this.siftDown(0);
    }
  }

  /** Best first. */
  sorted(): Scored[] {
    return [...this.heap].sort(bestFirst);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!ranksBefore(heap[parent], heap[child])) return;
      [heap[parent], heap[child]] = [heap[child], heap[parent]];
      child = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < heap.length && ranksBefore(heap[smallest], heap[left])) smallest = left;
      if (right < heap.length && ranksBefore(heap[smallest], heap[right])) smallest = right;
      if (smallest === parent) return;
      [heap[parent], heap[smallest]] = [heap[smallest], heap[parent]];
      parent = smallest;
    }
  }
}
