// Exact nearest neighbours (cosine) with the engine's own builtin embedder from dist/, the
// reference the ANN path's recall@10 is measured against.
import { loadConfig } from '../../dist/config.js';
import { createEmbedder } from '../../dist/engine/index.js';
import { flattenText } from '../../dist/engine/query/text-tokens.js';
import { toUpsert } from './searchplane-node.js';

/** The builtin embedder as the server configures it (default dimensions). */
export function builtinEmbedder() {
  return createEmbedder(loadConfig({}, { SEARCHPLANE_EMBEDDINGS_PROVIDER: 'builtin' }).embeddings);
}

function normalizeInto(target, offset, vector) {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) target[offset + i] = vector[i] / norm;
}

/**
 * For each query, the ids of the `k` documents with the highest cosine similarity, embedding each
 * document's text as the server does (its content's string fields joined: `flattenText`).
 */
export async function exactNeighbours(documents, queries, k = 10) {
  const embedder = builtinEmbedder();
  const [probe] = await embedder.embed(['probe']);
  const dims = probe.length;
  const matrix = new Float32Array(documents.length * dims);
  for (let start = 0; start < documents.length; start += 2000) {
    const slice = documents.slice(start, start + 2000);
    const vectors = await embedder.embed(slice.map((doc) => flattenText(toUpsert(doc).content)));
    vectors.forEach((vector, i) => {
      normalizeInto(matrix, (start + i) * dims, vector);
    });
  }
  const query = new Float32Array(dims);
  const out = [];
  for (const text of queries) {
    const [vector] = await embedder.embed([text]);
    normalizeInto(query, 0, vector);
    const best = []; // [score, index] ascending by score, at most k
    for (let d = 0, offset = 0; d < documents.length; d++, offset += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += query[i] * matrix[offset + i];
      if (best.length < k || dot > best[0][0]) {
        if (best.length === k) best.shift();
        let at = 0;
        while (at < best.length && best[at][0] < dot) at++;
        best.splice(at, 0, [dot, d]);
      }
    }
    out.push(new Set(best.map(([, d]) => documents[d].id)));
  }
  return out;
}

/** Mean fraction of each exact top-k found in the returned hits. */
export function recallAtK(exact, hitLists, k = 10) {
  let found = 0;
  hitLists.forEach((hits, q) => {
    found += hits.slice(0, k).filter((hit) => exact[q].has(hit.id)).length;
  });
  return found / (exact.length * k);
}
