import { contribution, lengthNorm } from './bm25.js';
import type { DocumentBuffer } from './document-buffer.js';
import type { PostingCursor } from './posting-cursor.js';
import type { Segment } from './segment.js';

/*
 * Exact BM25 of chosen documents, without pruning: each document's contributions summed in the
 * canonical order (by term text, see PostingCursor.rank), as the pruned search sums them.
 */

/** Contributions by (document, rank), reused between calls (grown as needed). */
let matrix = new Float64Array(1 << 14);
let candidates = new Int32Array(1 << 12);
let marks = new Uint8Array(1 << 12);

/**
 * Calls `visit` with each of `docs` (local numbers, ascending, live or not) that holds a term of
 * `cursors` (one per query term, of distinct ranks below `terms`) that is not optional, and its score.
 */
export function scoreDocuments(
  segment: Segment,
  cursors: readonly PostingCursor[],
  terms: number,
  docs: ArrayLike<number>,
  visit: (doc: number, score: number) => void,
): void {
  const open: PostingCursor[] = [];
  for (const cursor of cursors) {
    const j = segment.termIndex(cursor.id);
    if (j < 0) continue;
    cursor.open(segment, j);
    open.push(cursor);
  }
  if (open.length === 0) return;
  // Few documents far apart: each would cost a block decoded per term, so the terms a document
  // lacks are first told by its forward entries.
  const sparse = docs.length * SPARSE < segment.size;
  open.sort((a, b) => a.id - b.id);
  const ids = Int32Array.from(open, (cursor) => cursor.id);
  const held = new Uint8Array(open.length).fill(1);
  const contributions = new Float64Array(terms);
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i];
    if (sparse) segment.holds(doc, ids, held);
    let any = false;
    for (let c = 0; c < open.length; c++) {
      const cursor = open[c];
      const tf = held[c] ? cursor.tfAt(doc) : 0;
      contributions[cursor.rank] = tf > 0 ? cursor.score(tf, segment.lengths[doc]) : 0;
      any ||= tf > 0 && !cursor.optional;
    }
    if (!any) continue;
    let score = 0;
    for (let r = 0; r < terms; r++) score += contributions[r];
    visit(doc, score);
  }
}

/** Documents are sparse when fewer than one in this many of a segment's are scored. */
const SPARSE = 256;

/** Local numbers of the documents of `segment` holding a term of `cursors` that is not optional, ascending. */
export function matchingDocuments(segment: Segment, cursors: readonly PostingCursor[]): Int32Array {
  const matched = new Uint8Array(segment.size);
  for (const cursor of cursors) {
    if (cursor.optional) continue;
    const j = segment.termIndex(cursor.id);
    if (j < 0) continue;
    for (let block = segment.termBlocks[j]; block < segment.termBlocks[j + 1]; block++) {
      const count = segment.decodeDocs(j, block, cursor.docs);
      for (let i = 0; i < count; i++) matched[cursor.docs[i]] = 1;
    }
  }
  let count = 0;
  for (let doc = 0; doc < matched.length; doc++) count += matched[doc];
  const docs = new Int32Array(count);
  for (let doc = 0, n = 0; doc < matched.length; doc++) if (matched[doc]) docs[n++] = doc;
  return docs;
}

/**
 * Calls `visit` with each document of `buffer` (live or not) that holds a term of `cursors` that
 * is not optional, and its score; the terms' chains are read directly, so the cost follows their
 * postings there.
 */
export function scoreBuffer(
  buffer: DocumentBuffer,
  cursors: readonly PostingCursor[],
  terms: number,
  average: number,
  visit: (doc: number, score: number) => void,
): void {
  const n = buffer.count;
  if (n === 0) return;
  if (matrix.length < n * terms) matrix = new Float64Array(Math.max(n * terms, matrix.length * 2));
  if (candidates.length < n) {
    candidates = new Int32Array(Math.max(n, candidates.length * 2));
    marks = new Uint8Array(candidates.length);
  }
  const { head, next, docOf, tfs, lengths } = buffer;
  let count = 0;
  // The terms that select documents first: an optional term only adds to documents they marked.
  for (const optional of [false, true]) {
    for (const cursor of cursors) {
      if (cursor.optional !== optional || cursor.id >= head.length) continue;
      for (let entry = head[cursor.id]; entry >= 0; entry = next[entry]) {
        const doc = docOf[entry];
        if (optional && marks[doc] === 0) continue;
        matrix[doc * terms + cursor.rank] = contribution(cursor.idf, tfs[entry], lengthNorm(lengths[doc], average));
        if (marks[doc] === 0) {
          marks[doc] = 1;
          candidates[count++] = doc;
        }
      }
    }
  }
  for (let i = 0; i < count; i++) {
    const doc = candidates[i];
    marks[doc] = 0;
    let score = 0;
    for (let r = doc * terms; r < (doc + 1) * terms; r++) {
      score += matrix[r];
      matrix[r] = 0;
    }
    visit(doc, score);
  }
}
