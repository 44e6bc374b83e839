/*
 * The BM25 formula, in one place: every path that scores (pruned search, exhaustive search, given
 * documents) evaluates these same expressions, so equal inputs give equal scores to the last bit.
 */

/** BM25 saturation and length normalization (Lucene's defaults). */
export const K1 = 1.2;
export const B = 0.75;

/**
 * Upper bounds are compared after scaling by this: a hair above 1, so that rounding (in a bound,
 * or in a sum taken in another order than the canonical one) never prunes a document that reaches
 * the threshold.
 */
export const SLACK = 1 + 1e-9;

/** BM25's length normalization `k1·(1 − b + b·length/average)` of a weighted document length. */
export function lengthNorm(length: number, average: number): number {
  return K1 * (1 - B + (B * length) / average);
}

/** A term's contribution to a document's score, given its IDF, weighted frequency and the document's {@link lengthNorm}. */
export function contribution(idf: number, tf: number, norm: number): number {
  return (idf * tf * (K1 + 1)) / (tf + norm);
}

/** Inverse document frequency of a term held by `df` of `documents` documents. */
export function inverseDocumentFrequency(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}
