// The SQL of the FTS5 peer, shared by its process and its reader threads.

/** Top 10 by bm25() (lower is better in FTS5), with the stored text, as the other systems return. */
export const SEARCH_SQL = 'SELECT id, text, bm25(docs) AS score FROM docs WHERE docs MATCH ? ORDER BY score LIMIT 10';

/** `"word" OR "word" …`: every word of the query, quoted so FTS5 syntax characters mean nothing. */
export function orQuery(text) {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return words.map((word) => `"${word}"`).join(' OR ');
}
