import { FIELD_SEPARATOR, tokenize } from '../query/text-tokens.js';
import type { RerankDocument, Reranker } from './provider-types.js';

const K1 = 1.2;
const B = 0.75;
/** Feature weights; they sum to 1 so the combined score stays in 0..1. */
const WEIGHTS = { coverage: 0.35, bm25: 0.25, phrase: 0.15, proximity: 0.1, field: 0.15 };
/** Share of the first-stage hybrid score kept in the final score (semantic evidence the features lack). */
const FIRST_STAGE_SHARE = 0.2;

interface DocTerms {
  tokens: string[];
  fields: string[][];
  counts: Map<string, number>;
}

/**
 * Deterministic second-stage scorer. Where the first stage looks at each signal in isolation, this
 * one reads the candidates' text: IDF-weighted query-term coverage, saturated BM25 (statistics over
 * the candidate set), exact phrase, proximity of the matched terms and whether a single field
 * (e.g. a title) matches the query closely; then blends in the first-stage score.
 */
export function createBuiltinReranker(): Reranker {
  return { rerank: async (query, docs) => rerankSync(query, docs) };
}

function rerankSync(query: string, docs: RerankDocument[]): number[] {
  const queryTokens = tokenize(query);
  const terms = [...new Set(queryTokens)];
  if (terms.length === 0 || docs.length === 0) return docs.map((doc) => doc.score ?? 0);
  const parsed = docs.map((doc) => parseDoc(doc.text));
  const avgLength = parsed.reduce((sum, doc) => sum + doc.tokens.length, 0) / parsed.length || 1;
  const idf = new Map(terms.map((term) => [term, inverseDocFrequency(term, parsed)]));
  const idfTotal = terms.reduce((sum, term) => sum + idf.get(term)!, 0);

  return parsed.map((doc, i) => {
    let covered = 0;
    let bm25 = 0;
    for (const term of terms) {
      const tf = doc.counts.get(term) ?? 0;
      if (tf === 0) continue;
      covered += idf.get(term)!;
      bm25 += (idf.get(term)! * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * doc.tokens.length) / avgLength));
    }
    const features =
      WEIGHTS.coverage * (covered / idfTotal) +
      WEIGHTS.bm25 * (bm25 / (idfTotal * (K1 + 1))) +
      WEIGHTS.phrase * (queryTokens.length > 1 && containsSequence(doc.tokens, queryTokens) ? 1 : 0) +
      WEIGHTS.proximity * proximity(doc.tokens, terms) +
      WEIGHTS.field * bestField(doc.fields, terms);
    const firstStage = docs[i].score ?? features;
    return (1 - FIRST_STAGE_SHARE) * features + FIRST_STAGE_SHARE * firstStage;
  });
}

function parseDoc(text: string): DocTerms {
  const fields = text.split(FIELD_SEPARATOR).map(tokenize);
  const tokens = fields.flat();
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return { tokens, fields, counts };
}

/** BM25's IDF with the +1 inside the log so that terms present in every candidate still count. */
function inverseDocFrequency(term: string, docs: DocTerms[]): number {
  const df = docs.reduce((n, doc) => n + (doc.counts.has(term) ? 1 : 0), 0);
  return Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
}

function containsSequence(tokens: string[], sequence: string[]): boolean {
  outer: for (let start = 0; start + sequence.length <= tokens.length; start++) {
    for (let j = 0; j < sequence.length; j++) if (tokens[start + j] !== sequence[j]) continue outer;
    return true;
  }
  return false;
}

/** matched terms / length of the shortest window holding all of them (1 = adjacent); 0 below two terms. */
function proximity(tokens: string[], terms: string[]): number {
  const wanted = new Set(terms.filter((term) => tokens.includes(term)));
  if (wanted.size < 2) return 0;
  const inWindow = new Map<string, number>();
  let best = Number.POSITIVE_INFINITY;
  let left = 0;
  for (let right = 0; right < tokens.length; right++) {
    if (!wanted.has(tokens[right])) continue;
    inWindow.set(tokens[right], (inWindow.get(tokens[right]) ?? 0) + 1);
    while (inWindow.size === wanted.size) {
      best = Math.min(best, right - left + 1);
      const leftToken = tokens[left++];
      const count = inWindow.get(leftToken);
      if (count === undefined) continue;
      if (count === 1) inWindow.delete(leftToken);
      else inWindow.set(leftToken, count - 1);
    }
  }
  return wanted.size / best;
}

/** Best field by (query coverage × how much of the field the query explains): short exact fields win. */
function bestField(fields: string[][], terms: string[]): number {
  let best = 0;
  for (const field of fields) {
    if (field.length === 0) continue;
    const present = terms.filter((term) => field.includes(term)).length;
    if (present === 0) continue;
    const matchedTokens = field.filter((token) => terms.includes(token)).length;
    best = Math.max(best, (present / terms.length) * Math.sqrt(matchedTokens / field.length));
  }
  return best;
}
