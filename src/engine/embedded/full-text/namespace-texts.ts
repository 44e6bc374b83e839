import type { EngineLogger } from '../../providers/provider-types.js';
import type { AnalyzedDocument } from '../../query/analyzer.js';
import { documentAnalyses } from '../document-reads.js';
import type { DocumentStore } from '../document-store.js';
import { removeReplacedFile } from '../durable-file.js';
import { fullTextFile } from '../index-files.js';
import { FullTextIndex } from './full-text-index.js';
import { readFullTextSnapshot, writeFullTextSnapshot } from './full-text-snapshot.js';

/**
 * Namespaces smaller than this get no full-text snapshot file: rebuilding them from SQLite takes
 * well under a second.
 */
const SNAPSHOT_MIN_DOCUMENTS = 5000;

/**
 * The full-text indexes of one index's namespaces, in memory: each built on first use from its
 * snapshot file reconciled with SQLite (documents written since are added, documents deleted since
 * are removed), or from SQLite alone when there is no usable snapshot, and kept current with every
 * write after that. Snapshots of changed ones are written when the index closes.
 */
export class NamespaceTexts {
  private readonly texts = new Map<number, FullTextIndex>();
  /** Namespaces whose full-text index changed since its snapshot file was written (or read). */
  private readonly changed = new Set<number>();

  constructor(
    private readonly folder: string,
    private readonly store: DocumentStore,
    private readonly logger: EngineLogger,
  ) {}

  /** The namespace's full-text index, built now if it was not yet. */
  of(nsId: number): FullTextIndex {
    let text = this.texts.get(nsId);
    if (text) return text;
    const state = readFullTextSnapshot(fullTextFile(this.folder, nsId));
    text = state ? FullTextIndex.fromState(state) : new FullTextIndex();
    const indexed = text.labelSet();
    const missing: number[] = [];
    for (const label of this.store.labels('SELECT label FROM documents WHERE ns = ?', nsId)) {
      if (!indexed.delete(label)) missing.push(label);
    }
    for (const label of indexed) text.remove(label); // deleted after the snapshot was written
    for (const { label, analysis } of documentAnalyses(this.store, nsId, state ? missing : undefined)) {
      text.add(label, analysis);
    }
    this.texts.set(nsId, text);
    if (!state || missing.length > 0 || indexed.size > 0) this.changed.add(nsId);
    return text;
  }

  /**
   * Applies a commit to the namespace's index if it is built (one built later reads SQLite). A
   * version already there is skipped: an index built while the write waited in the backlog read it.
   */
  update(nsId: number, added: { label: number; doc: { analysis: AnalyzedDocument } }[], removed: number[]): void {
    const text = this.texts.get(nsId);
    if (!text) return;
    for (const label of removed) text.remove(label);
    for (const { label, doc } of added) text.add(label, doc.analysis);
    this.changed.add(nsId);
  }

  /**
   * Drops the namespace's index from memory, unsaved: the next use builds it again from its
   * snapshot file reconciled with SQLite (after a write it failed to follow, say).
   */
  drop(nsId: number): void {
    this.texts.delete(nsId);
    this.changed.delete(nsId);
  }

  /**
   * Drops the namespace's index and its snapshot file (reset, deleted namespace), with the temp
   * file a crash during a snapshot's write may have left.
   */
  async forget(nsId: number): Promise<void> {
    this.drop(nsId);
    await removeReplacedFile(fullTextFile(this.folder, nsId));
  }

  /** Writes the snapshots of the changed indexes worth one; failures only cost a rebuild. */
  async persist(): Promise<void> {
    await Promise.all([...this.changed].map((nsId) => this.writeSnapshot(nsId)));
  }

  private async writeSnapshot(nsId: number): Promise<void> {
    const text = this.texts.get(nsId);
    this.changed.delete(nsId);
    if (!text || text.size < SNAPSHOT_MIN_DOCUMENTS) return;
    const file = fullTextFile(this.folder, nsId);
    try {
      await writeFullTextSnapshot(file, text.toState());
    } catch (error) {
      this.logger.warn({ err: error, file }, 'writing the full-text snapshot failed; it will be rebuilt');
    }
  }
}
