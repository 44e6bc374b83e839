import Database from 'better-sqlite3';
import type { JsonObject } from '../../contract.js';
import { textFields } from '../../query/text-tokens.js';
import { sqliteOutOfDescriptors } from '../descriptor-probe.js';

/**
 * Loads SQLite's native module now, when the thread starts: better-sqlite3 loads it with the first
 * connection, and that may come when the process has no file descriptor left to load it with.
 */
export function loadSqlite(): void {
  new Database(':memory:').close();
}

/** A stored document's label, id and the string values of its content, in order. */
export interface StoredText {
  label: number;
  id: string;
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
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      // Read in label order, mostly once each: a map of the file would only hold pages in this process.
      db.pragma('mmap_size = 0');
      db.pragma('cache_size = -2048');
      this.byLabels = db.prepare(
        'SELECT label, id, json(content) AS content FROM documents WHERE label IN (SELECT value FROM json_each(?)) ORDER BY label',
      );
      this.db = db;
    } catch (error) {
      // Asked before the close gives a descriptor back. Reported with the system's code: the main
      // thread answers 503, and a later request opens it.
      const outOfDescriptors = sqliteOutOfDescriptors(error);
      db?.close();
      if (outOfDescriptors)
        throw Object.assign(new Error(`no file descriptor left to open ${file}`), { code: 'EMFILE' });
      throw error;
    }
  }

  /** The texts of those of `labels` that still exist (replaced and deleted versions are gone), in label order. */
  texts(labels: ArrayLike<number>): StoredText[] {
    const rows = this.byLabels.all(JSON.stringify(Array.from(labels))) as {
      label: number;
      id: string;
      content: string;
    }[];
    return rows.map((row) => ({
      label: row.label,
      id: row.id,
      fields: textFields(JSON.parse(row.content) as JsonObject),
    }));
  }

  close(): void {
    this.db.close();
  }
}
