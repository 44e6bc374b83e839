import type { Vocabulary } from '../providers/provider-types.js';

interface Entry {
  vocabulary: Vocabulary;
  loadedAt: number;
  generation: number;
}

/**
 * Per-namespace vocabularies for query enrichment. Reading every term of the FTS index costs
 * milliseconds, so a vocabulary is reused until the namespace changed *and* it is older than
 * `maxAgeMs`: a term written moments ago may be missing, which only means it is not a
 * spelling suggestion yet.
 */
export class VocabularyCache {
  private readonly entries = new Map<number, Entry>();

  constructor(
    private readonly loadTerms: (nsId: number) => string[],
    private readonly maxAgeMs = 5_000,
  ) {}

  /** `generation` changes whenever the namespace's documents change. */
  get(nsId: number, generation: number): Vocabulary {
    const entry = this.entries.get(nsId);
    const now = Date.now();
    if (entry && (entry.generation === generation || now - entry.loadedAt < this.maxAgeMs)) return entry.vocabulary;
    const vocabulary = buildVocabulary(this.loadTerms(nsId));
    this.entries.set(nsId, { vocabulary, loadedAt: now, generation });
    return vocabulary;
  }

  forget(nsId: number): void {
    this.entries.delete(nsId);
  }
}

function buildVocabulary(terms: string[]): Vocabulary {
  const all = new Set(terms);
  const byLength = new Map<number, string[]>();
  for (const term of all) {
    const bucket = byLength.get(term.length);
    if (bucket) bucket.push(term);
    else byLength.set(term.length, [term]);
  }
  return { has: (term) => all.has(term), termsOfLength: (length) => byLength.get(length) ?? [] };
}
