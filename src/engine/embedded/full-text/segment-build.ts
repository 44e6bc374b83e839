import { BLOCK_SIZE } from './block-codec.js';
import type { DocumentBuffer } from './document-buffer.js';
import type { Segment } from './segment.js';
import { SegmentWriter } from './segment-writer.js';

/**
 * The live documents of a buffer as a segment (removed ones dropped, the others renumbered in
 * order). The entries are inverted by a counting sort on term, sequential passes over them rather
 * than a walk of the terms' chains, which would wait on a cache miss at every step.
 */
export function sealBuffer(buffer: DocumentBuffer): Segment {
  const { count, starts, live, termIds } = buffer;
  const ids = buffer.termsAscending();
  const terms = ids.length;
  // Each term's position in ascending order, by term id.
  const rank = new Int32Array(ids.length > 0 ? ids[terms - 1] + 1 : 0);
  for (let r = 0; r < terms; r++) rank[ids[r]] = r;
  const local = new Int32Array(count);
  const termStart = new Int32Array(terms + 1);
  let documents = 0;
  for (let doc = 0; doc < count; doc++) {
    if (!live[doc]) {
      local[doc] = -1;
      continue;
    }
    local[doc] = documents++;
    for (let entry = starts[doc]; entry < starts[doc + 1]; entry++) termStart[rank[termIds[entry]] + 1]++;
  }
  for (let r = 0; r < terms; r++) termStart[r + 1] += termStart[r];
  const postings = termStart[terms];
  const docs = new Int32Array(postings);
  const tfs = new Int32Array(postings);
  const next = termStart.slice(0, terms);
  for (let doc = 0; doc < count; doc++) {
    if (local[doc] < 0) continue;
    for (let entry = starts[doc]; entry < starts[doc + 1]; entry++) {
      const p = next[rank[termIds[entry]]]++;
      docs[p] = local[doc];
      tfs[p] = buffer.tfs[entry];
    }
  }
  // Each document's term ids, ascending: the terms in order, scattered to their documents.
  const forwardStart = new Int32Array(documents + 1);
  for (let doc = 0; doc < count; doc++) {
    if (local[doc] >= 0) forwardStart[local[doc] + 1] = starts[doc + 1] - starts[doc];
  }
  for (let doc = 0; doc < documents; doc++) forwardStart[doc + 1] += forwardStart[doc];
  const forward = new Uint32Array(postings);
  const forwardNext = forwardStart.slice(0, documents);
  for (let r = 0; r < terms; r++) {
    for (let p = termStart[r]; p < termStart[r + 1]; p++) forward[forwardNext[docs[p]]++] = ids[r];
  }
  const writer = new SegmentWriter(documents, {
    forwardBytes: postings * 2,
    terms,
    blocks: terms + (postings >>> 7),
    words: (postings >>> 1) + terms * 2,
  });
  for (let doc = 0; doc < count; doc++) {
    const d = local[doc];
    if (d >= 0)
      writer.addDocumentTerms(buffer.labels[doc], buffer.lengths[doc], forward, forwardStart[d], forwardStart[d + 1]);
  }
  for (let r = 0; r < terms; r++) {
    if (termStart[r + 1] > termStart[r]) writer.addTerm(ids[r], docs, tfs, termStart[r], termStart[r + 1]);
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
    if (n > 0) writer.addTerm(id, docs, tfs, 0, n);
  }
  return writer.finish(segments[0].base);
}
