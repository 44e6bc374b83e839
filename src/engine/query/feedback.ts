import { type AnalyzedDocument, type AnalyzedQuery, STOP_WORDS, type Term } from './analyzer.js';

/*
 * Pseudo-relevance feedback (RM3): the best full-text matches of a query are taken as relevant,
 * the terms most probable in them are added to the query, and the expanded query ranks the
 * query's matches again. A user's words are short and miss the vocabulary the relevant documents
 * share; the first results hold it. Measured on six test collections of different domains, it
 * raised nDCG@10 on every one of them (docs/performance.md, "Relevance").
 */

/**
 * Best matches of the user's query the expansion learns from. RM3 usually takes 10; on six test
 * collections 5 ranked as well and halve what the expansion reads and analyzes per search
 * (docs/performance.md, "Relevance").
 */
export const FEEDBACK_DOCUMENTS = 5;
/**
 * Best matches of the user's query the expanded query scores and orders again (more when a search
 * asks for more): what bounds the expansion's cost. Ranking every document by the expanded query
 * instead gained 0.002 nDCG@10 more on six test collections and cost 3 to 4 times a plain search
 * on 200k documents, since its many added terms leave little for the pruning to skip.
 */
export const FEEDBACK_POOL = 50;
/** Terms the expansion may add: enough to carry the shared vocabulary, few enough to keep the search cheap. */
export const FEEDBACK_TERMS = 20;
/** The added terms' share of the expanded query's weight (RM3's λ); the user's words keep the rest. */
export const FEEDBACK_WEIGHT = 0.3;

/** A feedback document: its analysis and the BM25 score the user's query gave it. */
export interface FeedbackDocument {
  analysis: AnalyzedDocument;
  score: number;
}

/**
 * The query with the feedback's most probable terms added. Each document counts by P(D|Q) ∝
 * exp(BM25): BM25 approximates a log-odds of relevance, and so the documents clearly best weigh
 * most while near-ties share equally (weighting them by rank or by the raw score lost to plain
 * BM25 on two of the six collections). A term's probability is its weighted frequency over the
 * document's weighted length, summed over the documents. The user's content words keep weight 1;
 * the added terms share FEEDBACK_WEIGHT / (1 − FEEDBACK_WEIGHT) times their total weight in
 * proportion to their probability. Stop words are never added. Terms come out sorted by text
 * after the user's, so equal feedback gives an equal query.
 */
export function expandQuery(query: AnalyzedQuery, feedback: readonly FeedbackDocument[]): AnalyzedQuery {
  const content = query.words.filter((word) => !STOP_WORDS.has(word)).length;
  // A query of stop words alone is searched by them (see FullTextIndex): added content words would replace it.
  if (feedback.length === 0 || content === 0) return query;
  const best = Math.max(...feedback.map((doc) => doc.score));
  const likelihoods = feedback.map((doc) => Math.exp(doc.score - best));
  const total = likelihoods.reduce((sum, value) => sum + value, 0);
  // Keyed by the interned term objects: every word with one stem shares one (see analyzer.ts).
  const probabilities = new Map<Term, { text: string; probability: number; surface: string }>();
  feedback.forEach(({ analysis }, d) => {
    const share = likelihoods[d] / total / Math.max(1, analysis.length);
    const { terms, frequencies, surfaces } = analysis;
    for (let i = 0; i < terms.length; i++) {
      const entry = probabilities.get(terms[i]);
      if (entry) entry.probability += share * frequencies[i];
      else if (!STOP_WORDS.has(surfaces[i]))
        probabilities.set(terms[i], { text: terms[i].text, probability: share * frequencies[i], surface: surfaces[i] });
    }
  });
  const added = [...probabilities.values()]
    .sort((x, y) => y.probability - x.probability || byText(x, y))
    .slice(0, FEEDBACK_TERMS);
  const mass = added.reduce((sum, entry) => sum + entry.probability, 0);
  if (mass === 0) return query;

  const scale = ((FEEDBACK_WEIGHT / (1 - FEEDBACK_WEIGHT)) * content) / mass;
  const terms = [...query.terms];
  const words = [...query.words];
  const weights = query.terms.map((_, i) => query.weights?.[i] ?? 1);
  const position = new Map(terms.map((term, i) => [term, i]));
  for (const { text, probability, surface } of added.sort(byText)) {
    const at = position.get(text);
    if (at !== undefined) {
      weights[at] += probability * scale;
    } else {
      terms.push(text);
      words.push(surface);
      weights.push(probability * scale);
    }
  }
  // The added terms rank the documents the user's words match; they bring in none of their own.
  return { terms, words, weights, selecting: query.terms.length };
}

function byText(x: { text: string }, y: { text: string }): number {
  return x.text < y.text ? -1 : x.text > y.text ? 1 : 0;
}
