import { BLOCK_SIZE } from './block-codec.js';
import type { DocumentBuffer } from './document-buffer.js';
import type { Segment } from './segment.js';
import { SegmentWriter } from './segment-writer.js';

/** The live documents of a buffer as a segment (removed ones dropped, the others renumbered in order). */
export function sealBuffer(buffer: DocumentBuffer): Segment {
  const { count, starts, live } = buffer;
  const terms = buffer.termCount;
  const writer = new SegmentWriter(count - buffer.dead, {
    forwardBytes: buffer.entries * 2,
    terms,
    blocks: terms + (buffer.entries >>> 7),
    words: (buffer.entries >>> 1) + terms * 2,
  });
  const local = new Int32Array(count);
  let ids = new Uint32Array(256);
  for (let doc = 0; doc < count; doc++) {
    if (!live[doc]) {
      local[doc] = -1;
      continue;
    }
    const terms = starts[doc + 1] - starts[doc];
    if (terms > ids.length) ids = new Uint32Array(terms * 2);
    ids.set(buffer.termIds.subarray(starts[doc], starts[doc + 1]));
    ids.subarray(0, terms).sort();
    local[doc] = writer.addDocumentTerms(buffer.labels[doc], buffer.lengths[doc], ids, terms);
  }
  const docs = new Int32Array(writer.documents);
  const tfs = new Int32Array(writer.documents);
  const { head, next, docOf } = buffer;
  for (const id of buffer.termsAscending()) {
    let n = 0;
    for (let entry = head[id]; entry >= 0; entry = next[entry]) {
      const doc = local[docOf[entry]];
      if (doc < 0) continue;
      docs[n] = doc;
      tfs[n++] = buffer.tfs[entry];
    }
    if (n > 0) writer.addTerm(id, docs, tfs, n);
  }
  return writer.finish(buffer.base);
}

/**
 * One segment holding the live documents of consecutive `segments` (oldest first), in their order,
 * numbered from the first one's base: removed documents are dropped here.
 */
export function mergeSegments(segments: readonly Segment[]): Segment {
  let documents = 0;
  const estimate = { forwardBytes: 0, terms: 0, blocks: 0, words: 0 };
  for (const segment of segments) {
    documents += segment.liveCount;
    estimate.forwardBytes += segment.forward.length;
    estimate.terms += segment.terms.length;
    estimate.blocks += segment.blockLast.length;
    estimate.words += segment.data.length;
  }
  estimate.words += estimate.words >>> 4;
  const writer = new SegmentWriter(documents, estimate);
  const locals = segments.map((segment) => {
    const local = new Int32Array(segment.size);
    for (let doc = 0; doc < segment.size; doc++) {
      local[doc] = segment.live[doc]
        ? writer.addDocument(
            segment.labels[doc],
            segment.lengths[doc],
            segment.forward,
            segment.forwardOffsets[doc],
            segment.forwardOffsets[doc + 1],
          )
        : -1;
    }
    return local;
  });
  const docs = new Int32Array(documents);
  const tfs = new Int32Array(documents);
  const blockDocs = new Int32Array(BLOCK_SIZE);
  const blockTfs = new Int32Array(BLOCK_SIZE);
  const positions = new Int32Array(segments.length);
  for (;;) {
    let id = 0xffffffff;
    for (let s = 0; s < segments.length; s++) {
      const terms = segments[s].terms;
      if (positions[s] < terms.length && terms[positions[s]] < id) id = terms[positions[s]];
    }
    if (id === 0xffffffff) break;
    let n = 0;
    for (let s = 0; s < segments.length; s++) {
      const segment = segments[s];
      const j = positions[s];
      if (j >= segment.terms.length || segment.terms[j] !== id) continue;
      positions[s]++;
      const local = locals[s];
      for (let block = segment.termBlocks[j]; block < segment.termBlocks[j + 1]; block++) {
        const count = segment.decodeBlock(j, block, blockDocs, blockTfs);
        for (let i = 0; i < count; i++) {
          const doc = local[blockDocs[i]];
          if (doc < 0) continue;
          docs[n] = doc;
          tfs[n++] = blockTfs[i];
        }
      }
    }
    if (n > 0) writer.addTerm(id, docs, tfs, n);
  }
  return writer.finish(segments[0].base);
}
