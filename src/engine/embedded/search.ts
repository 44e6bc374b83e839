import type { JsonObject, ReadOptions, SearchHit, SearchOutcome, SearchRequest } from '../contract.js';
import type { Enricher, Reranker } from '../providers/provider-types.js';
import { type AnalyzedQuery, analyzeQuery, stemToken } from '../query/analyzer.js';
import { FEEDBACK_DOCUMENTS, FEEDBACK_POOL } from '../query/feedback.js';
import { parseFilter } from '../query/filter-parser.js';
import { agreedWeight, type Candidate, fuse, RERANK_WINDOW, rerankCandidates } from '../query/fusion.js';
import { validateSearchRequest } from '../query/search-request.js';
import { flattenText, textFields, tokenize } from '../query/text-tokens.js';
import { type DocumentRow, rowsByLabels, toOutput } from './document-reads.js';
import type { DocumentStore } from './document-store.js';
import { compileFilter, type SqlFragment } from './filter-sql.js';
import type { SegmentedVectors } from './segmented-vectors.js';
import { semanticCandidates, type Turn, vectorScores } from './semantic-candidates.js';
import { type QueryStatistics, type ShardedText, termStatistics } from './text-shards/sharded-text.js';
import type { SummedStatistics } from './text-shards/text-shard-protocol.js';
import { bestFirst, type Scored } from './vector-math.js';

/** What a search needs from the index it runs in. */
export interface SearchContext {
  store: DocumentStore;
  reranker: Reranker;
  enricher: Enricher;
  /** The namespace's full-text index, once every committed write has been sent to it. */
  text(nsId: number): Promise<ShardedText>;
  /** The lexical embedder the text shards embed queries with; undefined: {@link embedQuery} does. */
  shardEmbedder: string | undefined;
  /** The normalized query vector from the index's (remote or model) embedder. */
  embedQuery(query: string): Promise<Float32Array>;
  /** The namespace's vectors, loaded and reconciled. */
  vectors(nsId: number): Promise<SegmentedVectors>;
  /** Labels of the namespace's documents matching a filter (source text + compiled form). */
  filterMatches(nsId: number, source: string, filter: SqlFragment): Set<number>;
  /** Runs a CPU-heavy section of a search in its turn, so writes never queue behind searches. */
  turn: Turn;
}

/**
 * Full-text matches a pure vector search (w = 1) scores as candidates beside the graphs' nearest
 * neighbours: with a lexical embedder, the documents that share the query's words are most of its
 * true nearest neighbours, and a short query far from every document is where a graph walk misses
 * most. They cost a deeper full-text search and their stored vectors' reading.
 */
const VECTOR_TEXT_CANDIDATES = 200;

/**
 * The share of efSearch an unfiltered graph walk uses in a hybrid search (0 < w < 1). There the
 * full-text candidates are scored by vector too, so the graph only adds documents close to the
 * query without its words, and those are the nearest ones, which a short walk finds first: the
 * default request's top 10 hardly depends on how far the walk goes, while its cost grows with ef.
 */
const HYBRID_GRAPH_EFFORT = 0.25;

/** Extra rows read beyond the window, so a few candidates deleted meanwhile cost no second read. */
const READ_MARGIN = 8;

/**
 * Hybrid search over the local materialization of an index. Candidates are the union of the
 * top-N nearest vectors (HNSW + pending exact scan) and the top-N full-text matches (BM25 over the
 * namespace's text shards, scored with statistics summed over all of them); both signals are
 * computed for every candidate and fused (query/fusion.ts), then the rows of the best candidates
 * are read once: for the reranker's text and for the output.
 *
 * w = 0 does no vector work at all and asks the full-text side only for the results it returns
 * (and a few more in case some were deleted meanwhile). Full-text matches stay candidates even
 * at w = 1: with a lexical embedder they are most of the true nearest neighbours, which makes the
 * vector ranking robust to what the approximate graph misses.
 */
export async function search(
  context: SearchContext,
  namespace: string,
  request: SearchRequest,
): Promise<SearchOutcome> {
  validateSearchRequest(request);
  const filterText = request.filter?.trim() ?? '';
  // Parsed as sent, so its limits (length included) are those a delete's filter meets.
  const filter = filterText ? compileFilter(parseFilter(request.filter as string), 'd') : undefined;
  const { store, turn } = context;
  const nsId = store.namespaceId(namespace);
  if (nsId === undefined || store.documentCount(nsId) === 0) return { hits: [], rerankedDocuments: 0 };
  const text = await context.text(nsId);

  const weight = request.semanticWeight;
  const depth =
    weight === 0 && !request.reranking ? request.topK + READ_MARGIN : Math.max(2 * request.topK, RERANK_WINDOW);
  const { shardEmbedder } = context;
  const embedQuery = (queryText: string) =>
    weight > 0 && shardEmbedder ? { text: queryText, embedder: shardEmbedder } : undefined;
  let query = request.query;
  let analyzed = analyzeQuery(query);
  const words = request.inputEnrichment ? tokenize(query) : undefined;
  // One round to the shards brings the statistics, the query's vector and, for enrichment, the
  // spelling candidates of the words they do not know.
  let statistics = await text.statistics(analyzed.terms, {
    embedQuery: embedQuery(query),
    spelling: words && { words, terms: words.map(stemToken) },
  });
  if (words) {
    const expanded = await context.enricher.expand(query, statistics.vocabulary!);
    const enriched = request.keepOriginalQuery ? `${query} ${expanded}` : expanded || query;
    // A query whose words did not change keeps its statistics and vector (both depend on its words alone).
    if (!sameWords(tokenize(enriched), words)) {
      query = enriched;
      analyzed = analyzeQuery(query);
      statistics = await text.statistics(analyzed.terms, { embedQuery: embedQuery(query) });
    }
  }
  const queryVector = weight > 0 ? (statistics.vector ?? (await context.embedQuery(query))) : undefined;
  const vectors = weight > 0 ? await context.vectors(nsId) : undefined;

  // Labels are never reused, so the filter matches stay valid across the awaits below.
  const matches = filter ? await turn(() => context.filterMatches(nsId, filterText, filter)) : undefined;
  const semanticPart = vectors
    ? semanticCandidates(
        store,
        vectors,
        queryVector!,
        depth,
        matches,
        store.documentCount(nsId),
        turn,
        weight < 1 ? HYBRID_GRAPH_EFFORT : 1,
      )
    : Promise.resolve([]);
  // The vector workers search the graphs while the text shards search and expand the query.
  // A hybrid search ranks full text by the expanded query; `semanticWeight: 0` is plain BM25, which
  // keeps a keyword search at the cost of one search (the expansion costs about two more at 200k
  // documents), and `1` asks for no full-text ranking.
  const textPart =
    weight > 0 && weight < 1
      ? expandFromFeedback(context, text, analyzed, Math.max(depth, FEEDBACK_POOL), matches, statistics)
      : text
          .search(analyzed, weight === 1 ? Math.max(depth, VECTOR_TEXT_CANDIDATES) : depth, matches, statistics)
          .then((pool) => ({ pool, analyzed, statistics, expanded: false }));
  const [semanticMatches, textSide] = await Promise.all([semanticPart, textPart]);
  // A write sent before this search that a shard failed to take: its answer may miss the write.
  if (text.lost) throw new LostShardError(text.lostBecause);
  const semantic = new Map(semanticMatches.map((m) => [m.label, m.score]));
  let textTop = textSide.pool;
  const textScores = new Map<number, number>();
  if (weight > 0 && weight < 1) {
    const inPool = new Set(textTop.map((m) => m.label));
    const unscored = [...semantic.keys()].filter((label) => !inPool.has(label));
    // An expanded query scores its pool again beside the vector side's candidates, in one round.
    const asked = textSide.expanded ? [...inPool, ...unscored] : unscored;
    const scores = asked.length > 0 ? await text.scores(textSide.analyzed, asked, textSide.statistics) : undefined;
    if (textSide.expanded) {
      // Each of the pool holds a word of the query, so the expanded query scores it above 0.
      textTop = textTop.map(({ label }) => ({ label, score: scores?.get(label) ?? 0 })).sort(bestFirst);
    }
    for (const label of unscored) {
      const score = scores?.get(label);
      if (score !== undefined) textScores.set(label, score);
    }
  }
  for (const { label, score } of textTop) textScores.set(label, score);
  const wanted = request.reranking ? Math.max(request.topK, RERANK_WINDOW) : request.topK;
  if (vectors) {
    const unscored = textTop.filter((m) => !semantic.has(m.label)).map((m) => m.label);
    for (const [label, score] of await vectorScores(store, vectors, queryVector!, unscored, turn)) {
      semantic.set(label, score);
    }
  }
  const { window, rows } = await turn(() => {
    // The graph may still hold versions deleted or replaced since: their rows are gone, and
    // readLive skips them, as it skips a full-text match deleted after the search began.
    const labels = new Set([...semantic.keys(), ...textTop.map((m) => m.label)]);
    const fused = agreedWeight(
      weight,
      textTop.map((m) => m.label),
      semantic,
    );
    const ranked = fuse(labels, { semantic, text: textScores, bestText: textTop[0]?.score ?? 0 }, fused);
    return readLive(store, ranked, wanted, {
      includeData: request.includeData || request.reranking,
      includeMetadata: request.includeMetadata,
      budget: request.budget,
    });
  });
  let top = window;
  if (request.reranking && window.length > 0) {
    const rerank = () =>
      rerankCandidates(
        context.reranker,
        query,
        window,
        (label) => {
          const row = rows.get(label)!;
          return { id: row.id, text: flattenText(JSON.parse(row.content!) as JsonObject) };
        },
        termStatistics(statistics),
      );
    // A reranker on this thread is CPU work like the rest; a remote one is I/O, which needs no turn.
    top = await (context.reranker.local ? turn(rerank) : rerank());
  }
  const hits: SearchHit[] = top
    .slice(0, request.topK)
    .map((c) => ({ ...toOutput(rows.get(c.label)!, request), score: c.score }));
  return { hits, rerankedDocuments: request.reranking ? window.length : 0 };
}

/**
 * The full-text top `n` by BM25 of the query (the pool the caller scores again), with the query
 * expanded from its best matches (query/feedback.ts) and its statistics. A query with no more
 * matches than the feedback takes is not expanded (`expanded` false): all of its matches would be
 * the feedback, and there is nothing to tell apart by what they share.
 */
async function expandFromFeedback(
  context: SearchContext,
  text: ShardedText,
  analyzed: AnalyzedQuery,
  n: number,
  matches: Set<number> | undefined,
  statistics: QueryStatistics,
): Promise<{ pool: Scored[]; analyzed: AnalyzedQuery; statistics: SummedStatistics; expanded: boolean }> {
  const pool = await text.search(analyzed, n, matches, statistics);
  const unexpanded = { pool, analyzed, statistics, expanded: false };
  if (pool.length <= FEEDBACK_DOCUMENTS) return unexpanded;
  const best = pool.slice(0, FEEDBACK_DOCUMENTS);
  const feedback = await context.turn(() => {
    const rows = rowsByLabels(
      context.store,
      best.map((match) => match.label),
      { includeData: true, includeMetadata: false },
    );
    // Deleted since the search: the others still tell what the query's matches share.
    return best
      .filter(({ label }) => rows.has(label))
      .map(({ label, score }) => ({ score, fields: textFields(JSON.parse(rows.get(label)!.content!) as JsonObject) }));
  });
  const expanded = await text.expand(analyzed, feedback);
  // expandQuery adds `selecting` when it adds terms; a query it leaves alone comes back without.
  if (expanded.selecting === undefined) return unexpanded;
  return { pool, analyzed: expanded, statistics: await text.statistics(expanded.terms), expanded: true };
}

/** A search ran on a namespace whose full-text index lost part of itself (see ShardedText.lost). */
export class LostShardError extends Error {
  constructor(cause: unknown) {
    super('the full-text index of the namespace is being rebuilt', { cause });
  }
}

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/**
 * The first `wanted` candidates whose rows still exist, with those rows. Reads once in the common
 * case; again only when deletions emptied the margin.
 */
function readLive(
  store: DocumentStore,
  ranked: Candidate[],
  wanted: number,
  options: ReadOptions,
): { window: Candidate[]; rows: Map<number, DocumentRow> } {
  const window: Candidate[] = [];
  const rows = new Map<number, DocumentRow>();
  let next = 0;
  while (window.length < wanted && next < ranked.length) {
    const chunk = ranked.slice(next, next + wanted - window.length + READ_MARGIN);
    next += chunk.length;
    const found = rowsByLabels(
      store,
      chunk.map((c) => c.label),
      options,
    );
    for (const candidate of chunk) {
      const row = found.get(candidate.label);
      if (!row || window.length === wanted) continue;
      window.push(candidate);
      rows.set(candidate.label, row);
    }
  }
  return { window, rows };
}
