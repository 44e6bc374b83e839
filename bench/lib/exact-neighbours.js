// Exact nearest neighbours (cosine) of the vectors the server stored, the reference the ANN
// path's recall@10 is measured against. The builtin embedder weights features by the namespace's
// statistics when a document is written, so stored vectors cannot be recomputed from the text
// alone: they are read from the index's SQLite file, and each query is embedded the way the
// server embeds it (same embedder, statistics of the same documents).
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../dist/config.js';
import { FullTextIndex } from '../../dist/engine/embedded/full-text/full-text-index.js';
import { createEmbedder } from '../../dist/engine/index.js';
import { analyzeFields } from '../../dist/engine/query/analyzer.js';
import { textFields } from '../../dist/engine/query/text-tokens.js';

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
 * For each query, the ids of the `k` stored documents of `namespace` in index `indexId` (under the
 * server's `dataDir`) with the highest cosine similarity to the query.
 */
export async function exactNeighbours(dataDir, indexId, namespace, queries, k = 10) {
  const db = new Database(path.join(dataDir, 'indexes', indexId, 'index.sqlite'), { readonly: true });
  const rows = db
    .prepare(
      `SELECT d.label, d.id, json(d.content) AS content, e.vector FROM documents d
       JOIN embeddings e ON e.label = d.label JOIN namespaces n ON n.id = d.ns WHERE n.name = ? ORDER BY d.label`,
    )
    .all(namespace);
  db.close();
  const statistics = new FullTextIndex();
  for (const row of rows) statistics.add(row.label, analyzeFields(textFields(JSON.parse(row.content))));
  const dims = rows[0].vector.length / 4;
  const matrix = new Float32Array(rows.length * dims);
  rows.forEach((row, i) => {
    normalizeInto(
      matrix,
      i * dims,
      new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.length)),
    );
  });
  const embedder = builtinEmbedder();
  const query = new Float32Array(dims);
  const out = [];
  for (const text of queries) {
    const [vector] = await embedder.embed([text], statistics);
    normalizeInto(query, 0, vector);
    const best = []; // [score, index] ascending by score, at most k
    for (let d = 0, offset = 0; d < rows.length; d++, offset += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += query[i] * matrix[offset + i];
      if (best.length < k || dot > best[0][0]) {
        if (best.length === k) best.shift();
        let at = 0;
        while (at < best.length && best[at][0] < dot) at++;
        best.splice(at, 0, [dot, d]);
      }
    }
    out.push(new Set(best.map(([, d]) => rows[d].id)));
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
