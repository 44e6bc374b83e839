import type {
  DocumentInput,
  DocumentOutput,
  FetchSelector,
  IndexEngine,
  IndexInfo,
  ReadBudget,
  SearchEngine,
  SearchHit,
} from '../../engine/contract.js';
import { MAX_PAGE_SIZE } from '../../engine/query/request-checks.js';
import { AppError, isAppError } from '../../errors.js';
import type { QuotaGuard } from './quota-guard.service.js';
import { parseDeleteBody, parseFetchBody } from './request-selectors.js';
import type { DataPlaneCaller } from './token-auth.service.js';

/** Optional wire fields: clients send `null` as well as nothing for "not set". */
type Maybe<T> = T | null | undefined;

export interface SearchInput {
  query: string;
  topK?: Maybe<number>;
  includeData?: Maybe<boolean>;
  includeMetadata?: Maybe<boolean>;
  filter?: Maybe<string>;
  reranking?: Maybe<boolean>;
  semanticWeight?: Maybe<number>;
  inputEnrichment?: Maybe<boolean>;
  /** The SDK's `keepOriginalQueryAfterEnrichment`. */
  _appendOriginalInputToEnrichmentResult?: Maybe<boolean>;
}

export interface RangeInput {
  /** vector-js allows numeric cursors (`0` = start). */
  cursor?: Maybe<string | number>;
  limit: number;
  prefix?: Maybe<string>;
  includeData?: Maybe<boolean>;
  includeMetadata?: Maybe<boolean>;
}

export interface RangeOutput {
  nextCursor: string;
  vectors: DocumentOutput[];
}

/** The default of the SDK's `semanticWeight` (75 % semantic, 25 % full text). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.75;
/** `topK` when a raw REST caller omits it (the vector API's default). */
export const DEFAULT_TOP_K = 10;
/**
 * Documents per upsert and ids per delete by ids, whatever the index's `max_writes_per_request`
 * (a plans file may make it unlimited): one write is one statement in PostgreSQL, whose protocol
 * takes at most 65,535 parameters (7 per document).
 */
export const MAX_WRITE_BATCH = 5_000;

/** Rerank quota unit: one per 100 documents re-scored. */
const DOCUMENTS_PER_RERANK_UNIT = 100;

/**
 * The operations of the per-index API, framework-free: validate against the index's per-request
 * limits, admit the request against its rate and usage quotas, run it on the engine, then meter.
 *
 * Metering units: one query per search, fetch or range request and one update per upsert,
 * delete, reset or delete-namespace request, whatever the number of documents — requests are
 * what the per-second and daily quotas limit, and what the throughput series plots. `info` and
 * `list-namespaces` are free (they count only towards bandwidth). Usage is recorded only once
 * the engine has succeeded, so refused and failed requests cost no query or update.
 */
export class DataPlaneService {
  constructor(
    private readonly engine: SearchEngine,
    private readonly quotas: QuotaGuard,
  ) {}

  /** The caller's index, with the record head its token lookup read (PostgreSQL: no second query). */
  private open(caller: DataPlaneCaller): Promise<IndexEngine> {
    return this.engine.open(caller.indexId, { recordHead: caller.recordHead });
  }

  /** Inserts or replaces documents by id; the whole batch fails if it would pass `max_vector_count`. */
  async upsert(caller: DataPlaneCaller, namespace: string, body: DocumentInput | DocumentInput[]): Promise<'Success'> {
    const docs = Array.isArray(body) ? body : [body];
    checkWriteBatch(docs.length, 'Documents per upsert');
    this.quotas.checkRequestLimit(caller, 'max_writes_per_request', docs.length, 'Documents per upsert');
    await this.quotas.admit(caller, 'update');
    if (docs.length > 0) {
      const index = await this.open(caller);
      const maxVectorCount = caller.quotas.max_vector_count;
      try {
        await index.upsert(namespace, docs, { maxVectorCount });
      } catch (error) {
        // The engine enforces the limit atomically; the message names the quota field to raise.
        if (!isAppError(error) || error.code !== 'vector_limit_exceeded') throw error;
        throw new AppError(
          'vector_limit_exceeded',
          `Upsert refused, nothing was written: the index would pass max_vector_count (${maxVectorCount} documents)`,
          { details: error.details, cause: error },
        );
      }
    }
    this.quotas.record(caller.indexId, { updates: 1 });
    return 'Success';
  }

  /** Hybrid search, best first, scores 0..1. Past the rerank quota it ranks without reranking. */
  async search(
    caller: DataPlaneCaller,
    namespace: string,
    input: SearchInput,
    budget?: ReadBudget,
  ): Promise<SearchHit[]> {
    // Unasked, no more than the index's plan allows in one request (a limit it never chose to pass).
    const limit = caller.quotas.max_reads_per_request;
    const topK = input.topK ?? (limit > 0 ? Math.min(DEFAULT_TOP_K, limit) : DEFAULT_TOP_K);
    this.quotas.checkRequestLimit(caller, 'max_reads_per_request', topK, 'topK');
    await this.quotas.admit(caller, 'query');
    const reranking = input.reranking === true && (await this.quotas.rerankAllowed(caller));
    const index = await this.open(caller);
    const outcome = await index.search(namespace, {
      query: input.query,
      topK,
      includeData: input.includeData ?? false,
      includeMetadata: input.includeMetadata ?? false,
      filter: input.filter || undefined,
      semanticWeight: input.semanticWeight ?? DEFAULT_SEMANTIC_WEIGHT,
      reranking,
      // Enrichment is on by default (as in the SDK's docs) but only where the index allows it.
      inputEnrichment: caller.inputEnrichmentEnabled && (input.inputEnrichment ?? true),
      keepOriginalQuery: input._appendOriginalInputToEnrichmentResult ?? false,
      budget,
    });
    this.quotas.record(caller.indexId, {
      queries: 1,
      reranks: Math.ceil(outcome.rerankedDocuments / DOCUMENTS_PER_RERANK_UNIT),
    });
    return outcome.hits;
  }

  /** By ids (aligned with them, null where missing) or by id prefix; see {@link parseFetchBody}. */
  async fetch(
    caller: DataPlaneCaller,
    namespace: string,
    body: unknown,
    budget?: ReadBudget,
  ): Promise<(DocumentOutput | null)[]> {
    const { selector: wanted, flags } = parseFetchBody(body);
    let selector: FetchSelector;
    if ('ids' in wanted) {
      this.quotas.checkRequestLimit(caller, 'max_reads_per_request', wanted.ids.length, 'Ids per fetch');
      selector = wanted;
    } else {
      // A prefix fetch returns at most one request's worth of reads (a page at most, when the index
      // has no limit); `range` pages through more.
      const limit = caller.quotas.max_reads_per_request;
      if (limit === 0) this.quotas.checkRequestLimit(caller, 'max_reads_per_request', 1, 'Documents read');
      selector = { prefix: wanted.prefix, limit: limit < 0 ? MAX_PAGE_SIZE : Math.min(limit, MAX_PAGE_SIZE) };
    }
    await this.quotas.admit(caller, 'query');
    const index = await this.open(caller);
    const documents = await index.fetch(namespace, selector, { ...flags, budget });
    this.quotas.record(caller.indexId, { queries: 1 });
    return documents;
  }

  /** Deletes by ids, id prefix or filter (see {@link parseDeleteBody}); answers how many were removed. */
  async delete(caller: DataPlaneCaller, namespace: string, body: unknown): Promise<{ deleted: number }> {
    const selector = parseDeleteBody(body);
    if ('ids' in selector) {
      checkWriteBatch(selector.ids.length, 'Ids per delete');
      this.quotas.checkRequestLimit(caller, 'max_writes_per_request', selector.ids.length, 'Ids per delete');
    }
    await this.quotas.admit(caller, 'update');
    const index = await this.open(caller);
    const deleted = await index.delete(namespace, selector);
    this.quotas.record(caller.indexId, { updates: 1 });
    return { deleted };
  }

  /** One page of documents in id order; `nextCursor` is "" after the last page. */
  async range(
    caller: DataPlaneCaller,
    namespace: string,
    input: RangeInput,
    budget?: ReadBudget,
  ): Promise<RangeOutput> {
    this.quotas.checkRequestLimit(caller, 'max_reads_per_request', input.limit, 'Range limit');
    await this.quotas.admit(caller, 'query');
    const index = await this.open(caller);
    const page = await index.range(namespace, {
      cursor: input.cursor == null ? '' : String(input.cursor),
      limit: input.limit,
      prefix: input.prefix ?? undefined,
      includeData: input.includeData ?? false,
      includeMetadata: input.includeMetadata ?? false,
      budget,
    });
    this.quotas.record(caller.indexId, { queries: 1 });
    return { nextCursor: page.nextCursor, vectors: page.documents };
  }

  /** Removes every document of the namespace, or of every namespace with `all`. */
  async reset(caller: DataPlaneCaller, namespace: string, all: boolean): Promise<'Success'> {
    await this.quotas.admit(caller, 'update');
    const index = await this.open(caller);
    const namespaces = all ? await index.listNamespaces() : [namespace];
    for (const name of namespaces) await index.reset(name);
    this.quotas.record(caller.indexId, { updates: 1 });
    return 'Success';
  }

  /** Removes a namespace and its documents; the default namespace always exists. */
  async deleteNamespace(caller: DataPlaneCaller, namespace: string): Promise<'Success'> {
    if (namespace === '') throw new AppError('invalid_request', 'The default namespace cannot be deleted');
    await this.quotas.admit(caller, 'update');
    const index = await this.open(caller);
    await index.deleteNamespace(namespace);
    this.quotas.record(caller.indexId, { updates: 1 });
    return 'Success';
  }

  async info(caller: DataPlaneCaller): Promise<IndexInfo> {
    await this.quotas.admit(caller, 'none');
    const info = await (await this.open(caller)).info();
    if (info.namespaces[''] !== undefined) return info;
    return { ...info, namespaces: { '': { vectorCount: 0, pendingVectorCount: 0 }, ...info.namespaces } };
  }

  /**
   * The namespaces' names, the default one (`""`) always among them: every index has it, as in
   * the API we mirror, although the store holds a namespace only from its first write.
   */
  async listNamespaces(caller: DataPlaneCaller): Promise<string[]> {
    await this.quotas.admit(caller, 'none');
    const names = await (await this.open(caller)).listNamespaces();
    return names.includes('') ? names : ['', ...names];
  }

  /**
   * Meters the bytes of one request and its response (bodies, not headers). Called for every
   * authenticated request, whatever its outcome: refused requests still crossed the wire.
   */
  recordBandwidth(caller: DataPlaneCaller, bytes: number): void {
    if (bytes > 0) this.quotas.record(caller.indexId, { bandwidth: bytes });
  }
}

function checkWriteBatch(count: number, what: string): void {
  if (count > MAX_WRITE_BATCH) {
    throw new AppError(
      'request_limit_exceeded',
      `${what} is ${count}; one request may write at most ${MAX_WRITE_BATCH}`,
      {
        details: [{ field: 'documents', message: `at most ${MAX_WRITE_BATCH} per request` }],
      },
    );
  }
}
