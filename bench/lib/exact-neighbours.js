// Exact nearest neighbours (cosine) of the vectors the server stored, the reference the ANN
// path's recall@10 is measured against. The builtin embedder weights features by the statistics
// of the text shard that embeds a document, so stored vectors cannot be recomputed from the text
// alone: they are read from the index's SQLite file, and each query is embedded the way the
// server embeds it (same embedder, statistics of text shard 0: the documents whose label is a
// multiple of the shard count, the server's default).
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../dist/config.js';
import { FullTextIndex } from '../../dist/engine/embedded/full-text/full-text-index.js';
import { defaultTextShards } from '../../dist/engine/embedded/text-shards/text-shards.js';
import { decodeVector, storedCode } from '../../dist/engine/embedded/vector-codes.js';
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
  const dims = Number(db.prepare("SELECT value FROM meta WHERE key = 'dimensions'").pluck(true).get());
  const count = db
    .prepare('SELECT count(*) FROM documents d JOIN namespaces n ON n.id = d.ns WHERE n.name = ?')
    .pluck(true)
    .get(namespace);
  const statistics = new FullTextIndex();
  const shards = defaultTextShards();
  const ids = [];
  // The stored vectors as the server scores them: decoded codes, not normalized again.
  const matrix = new Float32Array(count * dims);
  const rows = db
    .prepare(
      `SELECT d.label, d.id, json(d.content) AS content, e.vector FROM documents d
       JOIN embeddings e ON e.label = d.label JOIN namespaces n ON n.id = d.ns WHERE n.name = ? ORDER BY d.label`,
    )
    .iterate(namespace);
  for (const row of rows) {
    if (row.label % shards === 0) statistics.add(row.label, analyzeFields(textFields(JSON.parse(row.content))));
    matrix.set(decodeVector(storedCode(row.vector, dims)), ids.length * dims);
    ids.push(row.id);
  }
  db.close();
  const embedder = builtinEmbedder();
  const query = new Float32Array(dims);
  const out = [];
  for (const text of queries) {
    const [vector] = await embedder.embed([text], statistics);
    normalizeInto(query, 0, vector);
    const best = []; // [score, index] ascending by score, at most k
    for (let d = 0, offset = 0; d < ids.length; d++, offset += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += query[i] * matrix[offset + i];
      if (best.length < k || dot > best[0][0]) {
        if (best.length === k) best.shift();
        let at = 0;
        while (at < best.length && best[at][0] < dot) at++;
        best.splice(at, 0, [dot, d]);
      }
    }
    out.push(new Set(best.map(([, d]) => ids[d])));
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
