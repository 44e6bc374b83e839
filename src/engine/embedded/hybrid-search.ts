import { AppError } from '../../errors.js';
import type { JsonObject, SearchHit, SearchOutcome, SearchRequest } from '../contract.js';
import type { Enricher, Reranker, Vocabulary } from '../providers/provider-types.js';
import { parseFilter } from '../query/filter-parser.js';
import { flattenText, ftsMatchQuery } from '../query/text-tokens.js';
import { fullTextCandidates, rowsByLabels, toOutput } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import { compileFilter, type SqlFragment } from './filter-sql.js';
import type { NamespaceVectors } from './namespace-vectors.js';
import { semanticCandidates, similarities } from './semantic-candidates.js';

/** Largest topK accepted; deeper pages are not a search use case and would scan too much. */
export const MAX_TOP_K = 1000;
/** Documents re-scored when reranking: at least this many, so the reranker can promote from below topK. */
const RERANK_WINDOW = 50;

/** What a search needs from the index it runs in. */
export interface SearchContext {
  store: DocumentStore;
  reranker: Reranker;
  enricher: Enricher;
  /** One normalized vector per text, checked against the index's dimensions. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** The namespace's vectors, loaded and reconciled. */
  vectors(nsId: number): Promise<NamespaceVectors>;
  vocabulary(nsId: number): Vocabulary;
  /** Labels of the namespace's documents matching a filter (source text + compiled form). */
  filterMatches(nsId: number, source: string, filter: SqlFragment): Set<number>;
}

interface Candidate {
  label: number;
  score: number;
}

/**
 * Hybrid search. Candidates are the union of the top-N nearest vectors (HNSW + pending exact
 * scan) and the top-N full-text matches (FTS5 BM25); both signals are then computed for every
 * candidate:
 *
 * - semantic = (1 + cosine) / 2, Upstash Vector's COSINE score (absolute: comparable across
 *   queries, and every vector neighbour keeps a positive score);
 * - fulltext = BM25 / best BM25 in the namespace for this query (relative: BM25 has no fixed scale,
 *   so the best keyword match gets 1 and a document without any query term gets 0);
 * - score = w·semantic + (1−w)·fulltext with w = semanticWeight, so 0..1.
 *
 * w = 0 skips the vector side, so only keyword matches are returned. Full-text matches stay
 * candidates even at w = 1: with a lexical embedder they are most of the true nearest
 * neighbours, which makes the vector ranking robust to what the approximate graph misses.
 */
export async function hybridSearch(
  context: SearchContext,
  namespace: string,
  request: SearchRequest,
): Promise<SearchOutcome> {
  validate(request);
  const filterText = request.filter?.trim() ?? '';
  const filter = filterText ? compileFilter(parseFilter(filterText), 'd') : undefined;
  const { store } = context;
  const nsId = store.namespaceId(namespace);
  if (nsId === undefined || store.documentCount(nsId) === 0) return { hits: [], rerankedDocuments: 0 };

  let query = request.query;
  if (request.inputEnrichment) {
    const expanded = await context.enricher.expand(query, context.vocabulary(nsId));
    query = request.keepOriginalQuery ? `${query} ${expanded}` : expanded || query;
  }
  const weight = request.semanticWeight;
  const depth = Math.max(2 * request.topK, RERANK_WINDOW);
  const [queryVector] = weight > 0 ? await context.embed([query]) : [];
  const vectors = weight > 0 ? await context.vectors(nsId) : undefined;

  // Labels are never reused, so the filter matches stay valid across the graph search's await;
  // labels deleted meanwhile are dropped below, and from there to ranking everything is synchronous.
  const matches = filter && vectors ? context.filterMatches(nsId, filterText, filter) : undefined;
  const semanticMatches = vectors
    ? await semanticCandidates(store, vectors, queryVector, depth, matches, store.documentCount(nsId))
    : [];
  const semanticScores = new Map(semanticMatches.map((m) => [m.label, m.score]));
  const match = ftsMatchQuery(query);
  const text = match
    ? fullTextCandidates(store, nsId, match, depth, weight < 1 ? [...semanticScores.keys()] : [], filter)
    : { top: [], scores: new Map<number, number>() };
  if (queryVector) {
    const unscored = text.top.filter((m) => !semanticScores.has(m.label)).map((m) => m.label);
    for (const [label, score] of similarities(store, queryVector, unscored)) semanticScores.set(label, score);
  }
  const bestText = text.top[0]?.score ?? 0;
  const labels = [...new Set([...semanticScores.keys(), ...text.top.map((m) => m.label)])];
  // HNSW may still hold deleted versions; only labels that exist in SQLite are current documents.
  const current = rowsByLabels(store, labels, { includeData: false, includeMetadata: false });
  let ranked = labels
    .filter((label) => current.has(label))
    .map((label): Candidate => {
      const semantic = clamp01((1 + (semanticScores.get(label) ?? -1)) / 2);
      const fulltext = bestText > 0 ? clamp01((text.scores.get(label) ?? 0) / bestText) : 0;
      return { label, score: weight * semantic + (1 - weight) * fulltext };
    })
    .sort(byScore);

  let rerankedDocuments = 0;
  if (request.reranking && ranked.length > 0) {
    ranked = await rerank(context, query, ranked.slice(0, Math.max(request.topK, RERANK_WINDOW)));
    rerankedDocuments = ranked.length;
  }
  return { hits: hitsFor(store, ranked.slice(0, request.topK), request), rerankedDocuments };
}

function validate(request: SearchRequest): void {
  if (typeof request.query !== 'string' || request.query.trim() === '') {
    throw new AppError('invalid_request', 'query must be a non-empty string', {
      details: [{ field: 'query', message: 'required' }],
    });
  }
  if (!Number.isInteger(request.topK) || request.topK < 1 || request.topK > MAX_TOP_K) {
    throw new AppError('invalid_request', `topK must be an integer from 1 to ${MAX_TOP_K}`, {
      details: [{ field: 'topK', message: `must be 1..${MAX_TOP_K}` }],
    });
  }
  const weight = request.semanticWeight;
  if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) {
    throw new AppError('invalid_request', 'semanticWeight must be a number from 0 to 1', {
      details: [{ field: 'semanticWeight', message: 'must be 0..1' }],
    });
  }
  if (request.filter !== undefined && typeof request.filter !== 'string') {
    throw new AppError('invalid_request', 'filter must be a string', {
      details: [{ field: 'filter', message: 'must be a string' }],
    });
  }
}

/** Re-scores the window with the reranker; its score (0..1) replaces the first-stage score. */
async function rerank(context: SearchContext, query: string, window: Candidate[]): Promise<Candidate[]> {
  const rows = rowsByLabels(
    context.store,
    window.map((c) => c.label),
    { includeData: true, includeMetadata: false },
  );
  const present = window.filter((c) => rows.has(c.label));
  const docs = present.map((c) => {
    const row = rows.get(c.label)!;
    return { id: row.id, text: flattenText(JSON.parse(row.content!) as JsonObject), score: c.score };
  });
  const scores = await context.reranker.rerank(query, docs);
  return present.map((c, i) => ({ ...c, score: clamp01(scores[i] ?? 0) })).sort(byScore);
}

/** Loads the returned documents last, so a document deleted while the reranker ran is not returned. */
function hitsFor(store: DocumentStore, top: Candidate[], request: SearchRequest): SearchHit[] {
  const rows = rowsByLabels(
    store,
    top.map((c) => c.label),
    request,
  );
  return top
    .filter((c) => rows.has(c.label))
    .map((c) => ({ ...toOutput(rows.get(c.label)!, request), score: c.score }));
}

/** Best first; ties by label (older version first) so results are deterministic. */
function byScore(a: Candidate, b: Candidate): number {
  return b.score - a.score || a.label - b.label;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
