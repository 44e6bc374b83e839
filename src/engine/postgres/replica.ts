import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../../errors.js';
import type { DB } from '../../store/schema.js';
import type { StoreChange } from '../embedded/document-store.js';
import type { EmbeddedEngine } from '../embedded/embedded-engine.js';
import type { EmbeddedIndex } from '../embedded/embedded-index.js';
import { SerialLock } from '../serial-lock.js';
import { lockForWrite, type RecordHead, readChanges, readHead, readHeadSeq } from './index-records.js';
import { HEARTBEAT_MS, withHeartbeat } from './transaction-heartbeat.js';

/** What a write did in the record: the changes it made, numbered after `fromSeq` up to `toSeq`. */
export interface WriteOutcome<R> {
  result: R;
  changes: StoreChange[];
  fromSeq: number;
  toSeq: number;
}

/** The logger methods a replica uses (pino-compatible). */
export interface ReplicaLogger {
  error(obj: object, msg?: string): void;
}

/**
 * This node's copy of one index whose system of record is PostgreSQL: the embedded index under
 * the data dir, kept current by replaying the record's change log after its watermark (the last
 * change applied, stored with the local data). Reads first make sure the copy holds every change
 * committed before they began (one indexed query when nothing changed, none when the caller read
 * the head with its token lookup); writes run in a record transaction under the index's head lock
 * and then apply their own changes locally.
 *
 * Everything here waits in the same order: the local copy (`local.use`, which can wait for a slot
 * among the node's open indexes), then a PostgreSQL connection (with the head lock, for a write),
 * then `applyLock`. A write holds its connection and the head lock while it waits for `applyLock`,
 * so anything that took `applyLock` first and then waited for a connection or a slot could wait
 * on it forever. Each operation opens the local copy once and hands the index down.
 */
export class Replica {
  /** Orders everything that changes the local copy. */
  private readonly applyLock = new SerialLock();
  /** Orders this node's writes to the index, so they queue here rather than holding connections. */
  private readonly writeLock = new SerialLock();
  /** The local copy's watermark as last seen (undefined until read from it). */
  private watermark: number | undefined;
  /** The catch-up running now and the head it was started for (see {@link sync}). */
  private catchUp: CatchUp | undefined;

  constructor(
    readonly indexId: string,
    private readonly db: Kysely<DB>,
    private readonly local: EmbeddedEngine,
    private readonly logger: ReplicaLogger,
    /** How often a waiting transaction shows PostgreSQL it is alive (see withHeartbeat). */
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  /** Whether nothing is running or queued on this replica. */
  get idle(): boolean {
    return this.applyLock.idle && this.writeLock.idle && this.catchUp === undefined;
  }

  /**
   * Brings the local copy up to at least the record's current head, or to `knownHead` when the
   * caller read the head itself after its request began (one query fewer per read).
   */
  async sync(knownHead?: number): Promise<void> {
    const head = knownHead ?? (await readHeadSeq(this.db, this.indexId));
    if (this.watermark !== undefined && this.watermark >= head) return;
    // Reads that find the copy behind join the running catch-up when it goes far enough, or when
    // its snapshot has not begun (it will then see every change committed before `head` was read):
    // a burst of reads takes at most two connections, not one each while they wait for applyLock.
    const running = this.catchUp;
    if (running && (running.head >= head || !running.sealed)) {
      running.head = Math.max(running.head, head);
      return running.done;
    }
    const target: CatchUp = { head, sealed: false, done: Promise.resolve() };
    const done = this.catchUpTo(target);
    target.done = done;
    this.catchUp = target;
    try {
      await done;
    } finally {
      if (this.catchUp?.done === done) this.catchUp = undefined;
    }
  }

  private catchUpTo(target: CatchUp): Promise<void> {
    return this.local.use(this.indexId, async (index) => {
      this.watermark ??= index.watermark();
      if (this.watermark >= target.head) {
        target.sealed = true;
        return;
      }
      // One snapshot for the whole read, so every page comes from the same state of the index. It
      // begins at the first query, which runs under applyLock.
      await this.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute((trx) =>
          // It may wait for applyLock, then page through a long backlog: idle, as PostgreSQL sees it.
          withHeartbeat(
            trx,
            () =>
              this.applyLock.run(async () => {
                target.sealed = true; // the snapshot begins with pull's first query
                if (this.watermark === undefined || this.watermark < target.head) await this.pull(trx, index);
              }),
            this.heartbeatMs,
          ),
        );
    });
  }

  /** The record's head row of the index (undefined before its first write). */
  head(): Promise<RecordHead | undefined> {
    return readHead(this.db, this.indexId);
  }

  /**
   * Runs a read on the local copy once it holds every change committed before this call (or up to
   * `knownHead`, the head read for this request after it began: see {@link sync}).
   */
  async read<R>(work: (index: EmbeddedIndex) => Promise<R>, knownHead?: number): Promise<R> {
    await this.sync(knownHead);
    return this.local.use(this.indexId, work);
  }

  /**
   * Runs `work` in a record transaction holding the index's head lock, with the local copy brought
   * up to that head first (so `work` may consult it, e.g. to evaluate a delete filter), then applies
   * the changes `work` committed to the local copy.
   */
  write<R>(
    work: (trx: Transaction<DB>, head: RecordHead, index: EmbeddedIndex) => Promise<WriteOutcome<R>>,
  ): Promise<R> {
    return this.writeLock.run(() =>
      // The local copy is opened before the record transaction begins: opening can wait for a slot
      // among the node's open indexes (up to 2 s behind a close that does not end), and no other
      // node may write to this index while this one holds its head lock (see the class comment).
      this.local.use(this.indexId, async (index) => {
        const outcome = await this.db.transaction().execute(async (trx) => {
          const head = await lockForWrite(trx, this.indexId);
          return withHeartbeat(
            trx,
            async () => {
              // Nothing else can commit for this index while the lock is held: the copy can catch up exactly.
              await this.applyLock.run(async () => {
                this.watermark ??= index.watermark();
                if (this.watermark !== head.seq) await this.pull(trx, index);
              });
              return work(trx, head, index);
            },
            this.heartbeatMs,
          );
        });
        if (outcome.toSeq > outcome.fromSeq) await this.applyOwn(outcome, index);
        return outcome.result;
      }),
    );
  }

  /**
   * Applies a committed write of this node, unless a catch-up already brought it in. `index` is the
   * local copy the caller holds in use; this and {@link pull} never open it again themselves: an
   * engine closing meanwhile would make that second use wait for the close, which waits for the first.
   */
  private async applyOwn(outcome: WriteOutcome<unknown>, index: EmbeddedIndex): Promise<void> {
    try {
      await this.applyLock.run(async () => {
        const watermark = index.watermark();
        if (watermark === outcome.fromSeq) await index.apply(outcome.changes, outcome.toSeq);
        this.watermark = index.watermark();
      });
    } catch (error) {
      // The write is committed in the record: the next read's catch-up replays it. (Once the local
      // store took it, the in-memory indexes cannot fail it: one that fails to follow is rebuilt.)
      this.watermark = undefined;
      this.logger.error({ err: error, indexId: this.indexId }, 'applying a committed write locally failed');
    }
  }

  /** Replays the record's changes after the local watermark into `index`, held in use (call under `applyLock`). */
  private async pull(executor: Kysely<DB> | Transaction<DB>, index: EmbeddedIndex): Promise<void> {
    const read = await readChanges(executor, this.indexId, index.watermark(), async (page, position) => {
      const head = position.read.head;
      if (position.first && head?.embedder && head.documentCount > 0) checkEmbedder(index, head);
      let changes = page;
      if (position.first && position.read.rebuild) {
        changes = [...(await startOver(index, position.read.namespaces)), ...page];
      }
      await index.apply(changes, position.last ? (head?.seq ?? 0) : undefined);
    });
    this.watermark = read.head?.seq ?? 0;
  }
}

interface CatchUp {
  head: number;
  /** Whether it stopped taking readers with a higher head (its snapshot began, or it found nothing to do). */
  sealed: boolean;
  done: Promise<void>;
}

/** Changes that empty the local copy before a rebuild: its namespaces reset or dropped. */
async function startOver(index: EmbeddedIndex, recordNamespaces: string[]): Promise<StoreChange[]> {
  const keep = new Set(recordNamespaces);
  const changes: StoreChange[] = (await index.listNamespaces()).map((namespace) => ({
    kind: keep.has(namespace) ? 'reset' : 'drop-namespace',
    namespace,
  }));
  for (const namespace of recordNamespaces) changes.push({ kind: 'namespace', namespace });
  return changes;
}

/** Refuses to mix vectors of another model into the local copy (nodes must share the embedder). */
function checkEmbedder(index: EmbeddedIndex, head: RecordHead): void {
  const local = index.embedderIdentity();
  if (head.embedder === local.name && (local.dimensions === undefined || head.dimensions === local.dimensions)) return;
  throw new AppError(
    'internal_error',
    `Index vectors were made with embedder '${head.embedder}' (${head.dimensions} dimensions) but this node is configured with '${local.name}'; every node must use the same embedder`,
  );
}
