import { AppError } from '../../errors.js';
import { createBuiltinEmbedderV1 } from '../providers/builtin-embedder-v1.js';
import type { Embedder } from '../providers/provider-types.js';
import type { PreparedDocument } from '../query/document-validation.js';
import type { DocumentStore } from './document-store.js';
import { lexicalEmbedder } from './text-shards/lexical-embedders.js';
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
   * The name of the embedder when it is a lexical one the text shards run (see
   * lexical-embedders.ts): computation in this process that cannot fail for valid documents, so that
   * a write can be acknowledged before its vectors exist. Undefined for remote and model embedders.
   */
  get shardEmbedder(): string | undefined {
    return lexicalEmbedder(this.embedder.name) ? this.embedder.name : undefined;
  }

  /** Vector size of the index; undefined until the first embedding when the embedder learns it. */
  get vectorDimensions(): number | undefined {
    return this.dimensions;
  }

  /** Vectors of documents about to be written, from the embedder itself (not a lexical one). */
  embedDocuments(docs: readonly PreparedDocument[]): Promise<Float32Array[]> {
    const texts = docs.map((doc) => doc.text);
    return this.timed(texts.length, () => this.embedder.embed(texts));
  }

  /** The vector of a query, from the embedder itself (not a lexical one). */
  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.timed(1, () => this.embedder.embed([query]));
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
