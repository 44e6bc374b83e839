import Database from 'better-sqlite3';
import type { JsonObject } from '../../contract.js';
import { textFields } from '../../query/text-tokens.js';
import { sqliteOutOfDescriptors } from '../descriptor-probe.js';

/** A stored document's label and the string values of its content, in order. */
export interface StoredText {
  label: number;
  fields: string[];
}

/**
 * An index's documents as a text shard thread reads them: its own read-only connection to the
 * index's SQLite file, shared by every namespace of that index the thread serves. Writes reach the
 * shards as labels of committed rows, so the text travels through SQLite (the page cache) rather
 * than through messages that would hold it while they wait in a shard's queue.
 */
export class ShardDocuments {
  private readonly db: Database.Database;
  private readonly byLabels: Database.Statement;

  constructor(file: string) {
    try {
      this.db = new Database(file, { readonly: true, fileMustExist: true });
    } catch (error) {
      // Reported with the system's code: the main thread answers 503, and a later request opens it.
      if (sqliteOutOfDescriptors(error))
        throw Object.assign(new Error(`no file descriptor left to open ${file}`), { code: 'EMFILE' });
      throw error;
    }
    // Read in label order, mostly once each: a map of the file would only hold pages in this process.
    this.db.pragma('mmap_size = 0');
    this.db.pragma('cache_size = -2048');
    this.byLabels = this.db.prepare(
      'SELECT label, json(content) AS content FROM documents WHERE label IN (SELECT value FROM json_each(?)) ORDER BY label',
    );
  }

  /** The texts of those of `labels` that still exist (replaced and deleted versions are gone), in label order. */
  texts(labels: ArrayLike<number>): StoredText[] {
    const rows = this.byLabels.all(JSON.stringify(Array.from(labels))) as { label: number; content: string }[];
    return rows.map((row) => ({ label: row.label, fields: textFields(JSON.parse(row.content) as JsonObject) }));
  }

  close(): void {
    this.db.close();
  }
}
