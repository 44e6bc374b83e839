import Database from 'better-sqlite3';
import type { BeirDocument, BeirQuery } from './beir-dataset.js';
import { meanMetrics, type QueryMetrics, queryMetrics, type ScoredHit } from './metrics.js';

const QUERY_WORD = /[\p{L}\p{N}]+/gu;

/**
 * Plain BM25 as SQLite FTS5 computes it, for a reference row beside searchplane's: porter
 * tokenizer, `bm25()` with its defaults (k1 1.2, b 0.75), title and text in one column and not cut
 * to the engine's content limit, the query's words OR-ed. This is the untuned baseline the
 * datasets README measured, so the row is comparable with those figures; it shares nothing with
 * the engine's own full-text code, which is what it is a baseline for.
 */
export function fts5Baseline(
  documents: readonly BeirDocument[],
  queries: readonly BeirQuery[],
  topK: number,
): QueryMetrics {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE d USING fts5(body, tokenize='porter')`);
    const insert = db.prepare('INSERT INTO d (rowid, body) VALUES (?, ?)');
    db.transaction(() => {
      documents.forEach((document, i) => {
        insert.run(i + 1, `${document.title} ${document.text}`);
      });
    })();
    const search = db.prepare<[string, number], { rowid: number; score: number }>(
      'SELECT rowid, bm25(d) AS score FROM d WHERE d MATCH ? ORDER BY score LIMIT ?',
    );
    const perQuery = queries.map((query) => {
      const expression = fts5Query(query.text);
      const hits: ScoredHit[] = expression
        ? search.all(expression, topK).map((row) => ({ id: documents[row.rowid - 1].id, score: -row.score }))
        : [];
      return queryMetrics(hits, query.judgments);
    });
    return meanMetrics(perQuery);
  } finally {
    db.close();
  }
}

/**
 * The query's distinct words, each a quoted FTS5 string so that none is read as an operator or
 * column name, OR-ed; empty when the query has no word (FTS5 refuses an empty expression). Each
 * word once, case folded as the tokenizer folds it: `bm25()` sums over the expression's phrases,
 * so a repeated word would weigh once per repetition, and the reference figures count it once.
 */
export function fts5Query(text: string): string {
  const words = new Set((text.match(QUERY_WORD) ?? []).map((word) => word.toLowerCase()));
  return [...words].map((word) => `"${word}"`).join(' OR ');
}
