import { AppError } from '../../errors.js';
import type { Embedder } from '../providers/provider-types.js';
import type { DocumentStore } from './document-store.js';
import { normalize } from './vector-math.js';

/**
 * The configured embedder bound to one index. The model and dimensions an index's vectors were
 * made with are stored in its SQLite file; a different embedder is refused at open (its vectors
 * would silently mix incomparable spaces) unless the index holds no documents yet.
 */
export class IndexEmbedder {
  private dimensions: number | undefined;

  constructor(
    private readonly embedder: Embedder,
    private readonly store: DocumentStore,
    private readonly indexName: string,
    private readonly onEmbed?: (seconds: number, texts: number) => void,
  ) {
    const storedName = store.getMeta('embedder');
    const storedDimensions = Number(store.getMeta('dimensions')) || undefined;
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

  /** Vector size of the index; undefined until the first embedding when the embedder learns it. */
  get vectorDimensions(): number | undefined {
    return this.dimensions;
  }

  /** Embeds and L2-normalizes; the first vectors ever embedded fix the index's dimensions. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const started = performance.now();
    const embeddings = await this.embedder.embed(texts);
    this.onEmbed?.((performance.now() - started) / 1000, texts.length);
    const expected = this.dimensions ?? embeddings[0]?.length;
    if (embeddings.length !== texts.length || embeddings.some((vector) => vector.length !== expected)) {
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
