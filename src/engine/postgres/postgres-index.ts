import type { Transaction } from 'kysely';
import { AppError } from '../../errors.js';
import type { DB } from '../../store/schema.js';
import type {
  DeleteSelector,
  DocumentInput,
  DocumentOutput,
  FetchSelector,
  IndexEngine,
  IndexInfo,
  RangeRequest,
  RangeResult,
  ReadOptions,
  SearchOutcome,
  SearchRequest,
  UpsertOptions,
} from '../contract.js';
import type { StoreChange } from '../embedded/document-store.js';
import type { EmbeddedIndex } from '../embedded/embedded-index.js';
import { checkVectorLimit, prepareDocuments } from '../query/document-validation.js';
import { checkNamespace } from '../query/request-checks.js';
import {
  clearNamespace,
  existingDocuments,
  logRemovals,
  namespaceExists,
  notify,
  type RecordHead,
  removeDocuments,
  updateHead,
  writeDocuments,
} from './index-records.js';
import type { Replica, WriteOutcome } from './replica.js';

/** The LISTEN/NOTIFY channel on which nodes tell each other about index changes and drops. */
export const CHANGES_CHANNEL = 'searchplane_index_changes';

/**
 * One index in PostgreSQL mode. Writes are decided and committed in PostgreSQL (documents with
 * their vectors, embedded once by the node taking the write; removals in the change log; the
 * document count in the head row, checked against `max_vector_count` under its lock); reads run on
 * this node's replica once it holds every change committed before the read began.
 */
export class PostgresIndex implements IndexEngine {
  constructor(
    private readonly replica: Replica,
    private readonly clock: () => number,
    /** The record's head as the caller read it after its request began (see OpenOptions). */
    private readonly recordHead?: number,
  ) {}

  async upsert(namespace: string, docs: DocumentInput[], options: UpsertOptions): Promise<void> {
    checkNamespace(namespace);
    if (!Number.isInteger(options.maxVectorCount)) {
      throw new AppError('invalid_request', 'maxVectorCount must be an integer');
    }
    const prepared = prepareDocuments(docs);
    if (prepared.length === 0) return;
    // Embedding is the slow part: done before any lock is taken.
    const { vectors, identity } = await this.replica.read(
      async (index) => ({
        vectors: await index.embedDocuments(namespace, prepared),
        identity: index.embedderIdentity(),
      }),
      this.recordHead,
    );
    await this.replica.write(async (trx, head) => {
      if (head.documentCount > 0 && head.embedder !== null && head.embedder !== identity.name) {
        throw new AppError(
          'internal_error',
          `Index vectors were made with embedder '${head.embedder}' but this node is configured with '${identity.name}'; every node must use the same embedder`,
        );
      }
      const existing = await existingDocuments(
        trx,
        this.replica.indexId,
        namespace,
        prepared.map((doc) => doc.id),
      );
      const documentCount = head.documentCount + prepared.length - existing.size;
      checkVectorLimit(options.maxVectorCount, head.documentCount, documentCount);
      const bytes = await writeDocuments(trx, this.replica.indexId, namespace, prepared, vectors, head.seq + 1);
      const changes: StoreChange[] = prepared.map((doc, i) => ({
        kind: 'upsert',
        namespace,
        label: head.seq + 1 + i,
        doc,
        vector: vectors[i],
      }));
      return this.commit(trx, head, changes, undefined, {
        documentCount,
        storedBytes: head.storedBytes + bytes - sum(existing.values()),
        embedder: identity.name,
        dimensions: vectors[0].length,
      });
    });
  }

  async delete(namespace: string, selector: DeleteSelector): Promise<number> {
    return this.replica.write(async (trx, head, index) => {
      // The replica is at the head and the head is locked: what matches now is what gets deleted.
      const ids = index.matchingIds(namespace, selector);
      const removed = await removeDocuments(trx, this.replica.indexId, namespace, ids);
      const changes: StoreChange[] = [...removed.keys()].map((id) => ({ kind: 'delete', namespace, id }));
      await logRemovals(
        trx,
        this.replica.indexId,
        changes as { kind: 'delete'; namespace: string; id: string }[],
        head.seq + 1,
        this.now(),
      );
      return this.commit(trx, head, changes, removed.size, {
        documentCount: head.documentCount - removed.size,
        storedBytes: head.storedBytes - sum(removed.values()),
      });
    });
  }

  async reset(namespace: string): Promise<void> {
    await this.replica.write((trx, head) => this.clear(trx, head, namespace, false));
  }

  async deleteNamespace(namespace: string): Promise<void> {
    await this.replica.write((trx, head) => this.clear(trx, head, namespace, true));
  }

  search(namespace: string, request: SearchRequest): Promise<SearchOutcome> {
    return this.replica.read((index) => index.search(namespace, request), this.recordHead);
  }

  fetch(namespace: string, selector: FetchSelector, options: ReadOptions): Promise<(DocumentOutput | null)[]> {
    return this.replica.read((index) => index.fetch(namespace, selector, options), this.recordHead);
  }

  range(namespace: string, request: RangeRequest): Promise<RangeResult> {
    return this.replica.read((index) => index.range(namespace, request), this.recordHead);
  }

  /**
   * The replica's counts; the size is what the record stores (the same on every node). The head row
   * read for the size, read after this call began, also tells the replica how far to catch up.
   */
  async info(): Promise<IndexInfo> {
    const head = await this.replica.head();
    const info = await this.replica.read((index) => index.info(), head?.seq ?? 0);
    return { ...info, indexSize: head?.storedBytes ?? 0 };
  }

  listNamespaces(): Promise<string[]> {
    return this.replica.read((index) => index.listNamespaces(), this.recordHead);
  }

  private async clear(
    trx: Transaction<DB>,
    head: RecordHead,
    namespace: string,
    drop: boolean,
  ): Promise<WriteOutcome<undefined>> {
    if (!(await namespaceExists(trx, this.replica.indexId, namespace))) {
      if (drop) throw new AppError('namespace_not_found', `Namespace '${namespace}' does not exist`);
      return { result: undefined, changes: [], fromSeq: head.seq, toSeq: head.seq };
    }
    const cleared = await clearNamespace(trx, this.replica.indexId, namespace, drop);
    const kind = drop ? 'drop-namespace' : 'reset';
    await logRemovals(trx, this.replica.indexId, [{ kind, namespace }], head.seq + 1, this.now());
    return this.commit(trx, head, [{ kind, namespace }], undefined, {
      documentCount: head.documentCount - cleared.count,
      storedBytes: head.storedBytes - cleared.bytes,
    });
  }

  /** Moves the head past `changes` (one number each) and tells the other nodes. */
  private async commit<R>(
    trx: Transaction<DB>,
    head: RecordHead,
    changes: StoreChange[],
    result: R,
    updates: Partial<RecordHead>,
  ): Promise<WriteOutcome<R>> {
    if (changes.length === 0) return { result, changes, fromSeq: head.seq, toSeq: head.seq };
    const next: RecordHead = { ...head, ...updates, seq: head.seq + changes.length };
    await updateHead(trx, this.replica.indexId, next);
    await notify(trx, CHANGES_CHANNEL, `changed:${this.replica.indexId}:${next.seq}`);
    return { result, changes, fromSeq: head.seq, toSeq: next.seq };
  }

  private now(): number {
    return Math.floor(this.clock() / 1000);
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

export type { EmbeddedIndex };
