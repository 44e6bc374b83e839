import { AppError } from '../../errors.js';
import { createBuiltinEmbedderV1 } from '../providers/builtin-embedder-v1.js';
import type { Embedder, TermStatistics } from '../providers/provider-types.js';
import type { PreparedDocument } from '../query/document-validation.js';
import type { DocumentStore } from './document-store.js';
import { normalize } from './vector-math.js';

const BUILTIN_V1 = /^builtin-hash-v1\/(\d+)$/;

/**
 * The configured embedder bound to one index. The model and dimensions an index's vectors were
 * made with are stored in its SQLite file; a different embedder is refused at open (its vectors
 * would silently mix incomparable spaces) unless the index holds no documents yet. Indexes filled
 * by the first builtin embedder (v1) keep using it when the builtin one is configured.
 */
export class IndexEmbedder {
  private dimensions: number | undefined;
  private readonly embedder: Embedder;

  constructor(
    configured: Embedder,
    private readonly store: DocumentStore,
    private readonly indexName: string,
    private readonly onEmbed?: (seconds: number, texts: number) => void,
  ) {
    const storedName = store.getMeta('embedder');
    const storedDimensions = Number(store.getMeta('dimensions')) || undefined;
    const legacy = storedName === undefined ? null : BUILTIN_V1.exec(storedName);
    this.embedder =
      legacy && configured.name.startsWith('builtin-') && store.totalCount() > 0
        ? createBuiltinEmbedderV1(Number(legacy[1]))
        : configured;
    const embedder = this.embedder;
    if (storedName === undefined || store.totalCount() === 0) {
      store.setMeta('embedder', embedder.name);
      if (embedder.dimensions !== undefined) store.setMeta('dimensions', String(embedder.dimensions));
      this.dimensions = embedder.dimensions;
      return;
    }
    this.dimensions = storedDimensions;
    if (
      storedName !== embedder.name ||
      (embedder.dimensions !== undefined && embedder.dimensions !== storedDimensions)
    ) {
      throw this.mismatch(`is '${embedder.name}' (${embedder.dimensions ?? 'unknown'} dimensions)`);
    }
  }

  /** Name of the model the index's vectors come from. */
  get name(): string {
    return this.embedder.name;
  }

  /**
   * Whether embedding is computation in this process that cannot fail for valid documents (the
   * lexical builtin embedders), so that a write can be acknowledged before its vectors exist.
   */
  get inProcess(): boolean {
    return this.embedder.embedTerms !== undefined;
  }

  /** Vector size of the index; undefined until the first embedding when the embedder learns it. */
  get vectorDimensions(): number | undefined {
    return this.dimensions;
  }

  /**
   * Vectors of documents about to be written to a namespace with `statistics` (the namespace as it
   * is): the batch's own terms count too, so that the first documents of a namespace are weighted
   * by something better than nothing. `counted`: the statistics already count these documents (a
   * full-text index built from SQLite while they waited in the backlog).
   */
  embedDocuments(
    docs: readonly PreparedDocument[],
    statistics?: TermStatistics,
    counted = false,
  ): Promise<Float32Array[]> {
    const withBatch = counted ? statistics : withDocuments(statistics, docs);
    if (this.embedder.embedTerms) {
      const analyses = docs.map((doc) => doc.analysis);
      return this.timed(docs.length, async () => this.embedder.embedTerms!(analyses, withBatch));
    }
    const texts = docs.map((doc) => doc.text);
    return this.timed(texts.length, () => this.embedder.embed(texts, withBatch));
  }

  /** The vector of a query in a namespace with `statistics`. */
  async embedQuery(query: string, statistics?: TermStatistics): Promise<Float32Array> {
    const [vector] = await this.timed(1, () => this.embedder.embed([query], statistics));
    return vector;
  }

  /** Runs an embedder call: times it, checks the sizes, L2-normalizes; the first vectors fix the dimensions. */
  private async timed(count: number, call: () => Promise<Float32Array[]>): Promise<Float32Array[]> {
    const started = performance.now();
    const embeddings = await call();
    this.onEmbed?.((performance.now() - started) / 1000, count);
    const expected = this.dimensions ?? embeddings[0]?.length;
    if (embeddings.length !== count || embeddings.some((vector) => vector.length !== expected)) {
      throw this.mismatch(`produced embeddings of ${embeddings[0]?.length} dimensions`);
    }
    if (this.dimensions === undefined && expected !== undefined) {
      this.dimensions = expected;
      this.store.setMeta('dimensions', String(expected));
    }
    return embeddings.map(normalize);
  }

  private mismatch(configured: string): AppError {
    const stored = `'${this.store.getMeta('embedder')}' (${this.store.getMeta('dimensions') ?? 'unknown'} dimensions)`;
    return new AppError(
      'internal_error',
      `Index ${this.indexName} was built with embedder ${stored} but the configured embedder ${configured}; ` +
        'configure the original embedder or re-create the index',
    );
  }
}

/**
 * A batch weighs in the statistics only while the namespace is small; past this many times the
 * batch's size, its share of the counts is too small to change any weight that matters.
 */
const BATCH_SHARE_LIMIT = 20;

/** Statistics of a namespace with a batch of documents added to it. */
function withDocuments(
  base: TermStatistics | undefined,
  docs: readonly PreparedDocument[],
): TermStatistics | undefined {
  if (base && base.documentCount >= BATCH_SHARE_LIMIT * docs.length) return base;
  const df = new Map<string, number>();
  const trigrams = new Map<string, number>();
  for (const doc of docs) {
    for (const term of doc.analysis.terms) {
      df.set(term.text, (df.get(term.text) ?? 0) + 1);
      for (const trigram of term.trigrams) trigrams.set(trigram, (trigrams.get(trigram) ?? 0) + 1);
    }
  }
  return {
    documentCount: (base?.documentCount ?? 0) + docs.length,
    documentFrequency: (term) => (base?.documentFrequency(term) ?? 0) + (df.get(term) ?? 0),
    trigramFrequency: (trigram) => (base?.trigramFrequency(trigram) ?? 0) + (trigrams.get(trigram) ?? 0),
  };
}
