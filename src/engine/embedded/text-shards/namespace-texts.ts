import { forWantOfDescriptors } from '../../../errors.js';
import type { EngineLogger } from '../../providers/provider-types.js';
import type { DocumentStore, EmbeddedDocument } from '../document-store.js';
import { databaseFile, fullTextFile, partFile, removeFileParts } from '../index-files.js';
import { ShardedText } from './sharded-text.js';
import type { TextShards } from './text-shards.js';

/** Documents a shard is asked to read and index in one message when a namespace is (re)built. */
const REBUILD_BATCH = 1000;

/** Numbers the namespace indexes built in this process, so that shard keys never collide. */
let built = 0;

/** One namespace's sharded full-text index and what is on its way into it. */
interface NamespaceText {
  sharded: ShardedText;
  /** Resolves when every document of SQLite has been sent to the shards (so a search sent now sees them). */
  ready: Promise<void>;
  /** Documents sent to be embedded whose vectors have not come back. */
  embedding: number;
  /** Documents sent that the shards have not indexed yet. */
  sent: number;
  /** Writes sent and not answered yet. */
  writes: Set<Promise<unknown>>;
  /**
   * The lowest label a write has sent since the namespace was opened: the build leaves such
   * labels (and higher ones, committed later) to those writes.
   */
  firstWritten: number;
}

export interface NamespaceTextsOptions {
  /** The lexical embedder the shards make document vectors with (when the index's embedder is one). */
  embedder: string | undefined;
  /** Vectors made by the shards for documents written without them, and the time the shards took. */
  embedded(nsId: number, docs: EmbeddedDocument[], seconds: number): void;
}

/**
 * The full-text indexes of one index's namespaces, each split over the engine's text shards: built
 * on first use from the shards' snapshot files reconciled with SQLite (documents written since are
 * sent, documents deleted since removed, documents still without a vector embedded), and kept
 * current with every write after that. A shard thread that dies loses its part of every namespace:
 * each is then built again at its next use, and documents whose vectors never came back are
 * embedded again (they have none in SQLite). Snapshots are written when the index closes.
 */
export class NamespaceTexts {
  private readonly texts = new Map<number, NamespaceText>();

  constructor(
    private readonly folder: string,
    private readonly store: DocumentStore,
    private readonly shards: TextShards,
    private readonly logger: EngineLogger,
    private readonly options: NamespaceTextsOptions,
  ) {}

  /** The namespace's full-text index (its rebuild starts now if it is not built). */
  of(nsId: number): NamespaceText {
    let text = this.texts.get(nsId);
    if (text && !text.sharded.lost) return text;
    if (text) this.discardLost(nsId, text);
    const sharded = new ShardedText(this.shards, `${++built}`);
    text = {
      sharded,
      ready: Promise.resolve(),
      embedding: 0,
      sent: 0,
      writes: new Set(),
      firstWritten: Number.POSITIVE_INFINITY,
    };
    const current = text;
    this.texts.set(nsId, text);
    this.shards.watch(sharded.key, () => {
      current.sharded.lost = true;
    });
    text.ready = this.build(nsId, current);
    // A failed build leaves the namespace to be built again at its next use.
    text.ready.catch(() => {
      current.sharded.lost = true;
    });
    return text;
  }

  /** The namespace's index once every committed document has been sent to it. */
  async ready(nsId: number): Promise<ShardedText> {
    const text = this.of(nsId);
    await text.ready;
    return text.sharded;
  }

  /**
   * Indexes written document versions; with `embed`, their vectors (by the shards, with the
   * namespace's statistics) are handed to {@link NamespaceTextsOptions.embedded} once made. The
   * promise settles when the shards are done; a failure is logged, and what it missed is done again
   * when the namespace is rebuilt.
   */
  add(nsId: number, labels: number[], embed: boolean): Promise<void> {
    if (labels.length === 0) return Promise.resolve();
    const text = this.of(nsId);
    for (const label of labels) if (label < text.firstWritten) text.firstWritten = label;
    return this.send(nsId, text, labels, embed);
  }

  private send(nsId: number, text: NamespaceText, labels: number[], embed: boolean): Promise<void> {
    if (labels.length === 0) return Promise.resolve();
    const embedder = embed ? this.options.embedder : undefined;
    const counted = embedder ? labels.length : 0;
    text.embedding += counted;
    text.sent += labels.length;
    const work = text.sharded.add(labels, embedder).then(
      (indexed) => {
        text.embedding -= counted;
        text.sent -= labels.length;
        if (embedder && !text.sharded.lost) {
          const vectors = indexed.labels.map((label, i) => ({ label, id: indexed.ids[i], vector: indexed.codes[i] }));
          this.options.embedded(nsId, vectors, indexed.seconds);
        }
      },
      (error) => {
        text.embedding -= counted;
        text.sent -= labels.length;
        this.failed(nsId, text, error);
      },
    );
    return this.track(text, work);
  }

  /** Removes document versions from the namespace's index (when it is built; a later build reads SQLite). */
  remove(nsId: number, labels: number[]): void {
    const text = this.texts.get(nsId);
    if (!text || text.sharded.lost || labels.length === 0) return;
    void this.track(
      text,
      text.sharded.remove(labels).catch((error) => this.failed(nsId, text, error)),
    );
  }

  /**
   * Vectors of documents not written yet, made by the shards with the statistics of the namespace
   * (when it exists) and the documents themselves.
   */
  embedUnwritten(nsId: number | undefined, fields: string[][]): Promise<{ vectors: Float32Array[]; seconds: number }> {
    const embedder = this.options.embedder;
    if (!embedder) throw new Error('the index embedder does not run in the text shards');
    const sharded = nsId === undefined ? new ShardedText(this.shards, `${++built}`) : this.of(nsId).sharded;
    return sharded.embed(fields, embedder);
  }

  /** Documents sent to the shards, over every namespace, that they have not indexed yet. */
  inFlight(): number {
    let total = 0;
    for (const text of this.texts.values()) total += text.sent;
    return total;
  }

  /** Marks the namespace to be built again at its next use (it missed a write it cannot redo). */
  lose(nsId: number): void {
    const text = this.texts.get(nsId);
    if (text) text.sharded.lost = true;
  }

  /** Whether a namespace lost writes (its documents without vectors are embedded at its rebuild). */
  anyLost(): boolean {
    for (const text of this.texts.values()) if (text.sharded.lost) return true;
    return false;
  }

  /** Documents of a namespace (or of all) sent to be embedded whose vectors have not come back. */
  embedding(nsId?: number): number {
    if (nsId !== undefined) return this.texts.get(nsId)?.embedding ?? 0;
    let total = 0;
    for (const text of this.texts.values()) total += text.embedding;
    return total;
  }

  /** Resolves when every write sent so far has been answered. */
  async settled(): Promise<void> {
    for (const text of [...this.texts.values()]) {
      while (text.writes.size > 0) await Promise.allSettled([...text.writes]);
    }
  }

  /**
   * Drops the namespace's index, unsaved, and its snapshot files (reset, deleted namespace), with
   * the temp files a crash during a snapshot's write may have left.
   */
  async forget(nsId: number): Promise<void> {
    const text = this.texts.get(nsId);
    this.texts.delete(nsId);
    if (text) await this.closeShards(text, false);
    await removeFileParts(fullTextFile(this.folder, nsId));
  }

  /** Waits for the writes under way, then writes the snapshots of the namespaces and drops them. */
  async close(): Promise<void> {
    await this.settled();
    const texts = [...this.texts];
    this.texts.clear();
    await Promise.all(texts.map(([nsId, text]) => this.closeShards(text, true, nsId)));
  }

  /** The snapshot file of one shard of the namespace. */
  private snapshotFile(nsId: number, shard: number): string {
    return partFile(fullTextFile(this.folder, nsId), shard, this.shards.count);
  }

  private async closeShards(text: NamespaceText, save: boolean, nsId?: number): Promise<void> {
    this.shards.unwatch(text.sharded.key);
    await text.ready.catch(() => undefined);
    const keep = save && !text.sharded.lost && nsId !== undefined;
    try {
      await text.sharded.close(keep ? (shard) => this.snapshotFile(nsId, shard) : undefined);
    } catch (error) {
      if (keep) this.logger.warn({ err: error, folder: this.folder, nsId }, 'writing a full-text snapshot failed');
    }
  }

  /**
   * Opens the shards and sends them what SQLite has that they lack: every document when there is
   * no snapshot, the documents written since it otherwise; removes what was deleted since; has the
   * documents that still have no vector embedded.
   */
  private async build(nsId: number, text: NamespaceText): Promise<void> {
    const held = await text.sharded.open(databaseFile(this.folder), (shard) => this.snapshotFile(nsId, shard));
    const unembedded = new Set(this.store.unembedded().get(nsId) ?? []);
    const indexed = new Set(held);
    const missing: number[] = [];
    for (const label of this.store.labels('SELECT label FROM documents WHERE ns = ? ORDER BY label', nsId)) {
      if (label >= text.firstWritten) break;
      if (!indexed.delete(label) || unembedded.has(label)) missing.push(label);
    }
    for (const label of indexed) if (label >= text.firstWritten) indexed.delete(label);
    // What `indexed` still holds was deleted after the snapshot was written.
    this.remove(nsId, [...indexed]);
    // The shards read the documents themselves; the batches only bound what one message asks.
    for (let at = 0; at < missing.length; at += REBUILD_BATCH) {
      const batch = missing.slice(at, at + REBUILD_BATCH);
      void this.send(
        nsId,
        text,
        batch.filter((label) => !unembedded.has(label)),
        false,
      );
      void this.send(
        nsId,
        text,
        batch.filter((label) => unembedded.has(label)),
        true,
      );
    }
  }

  private track(text: NamespaceText, work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => text.writes.delete(tracked));
    text.writes.add(tracked);
    return tracked;
  }

  private failed(nsId: number, text: NamespaceText, error: unknown): void {
    text.sharded.lostBecause ??= error;
    if (!text.sharded.lost) {
      this.logger[forWantOfDescriptors(error) ? 'warn' : 'error'](
        { err: error, folder: this.folder, nsId },
        'updating the full-text index failed; it will be rebuilt',
      );
    }
    text.sharded.lost = true;
  }

  /** A lost namespace's surviving shards are dropped before it is built again. */
  private discardLost(nsId: number, text: NamespaceText): void {
    this.texts.delete(nsId);
    void this.closeShards(text, false);
  }
}
