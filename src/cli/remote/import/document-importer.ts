import { RemoteError } from '../http-request.js';
import type { ImportDocument } from './import-document.js';

/** Documents the server refused, and why. */
export interface ImportFailure {
  ids: string[];
  error: string;
}

export interface ImporterOptions {
  /** Documents per upsert: the index's `max_writes_per_request`. */
  maxDocuments: number;
  /** Bytes per upsert body, under the server's body limit. */
  maxBytes: number;
  /** One upsert (retries of 429/5xx happen inside). */
  upsert: (documents: ImportDocument[]) => Promise<void>;
  /** After each accepted batch, with the total imported so far. */
  onProgress?: (imported: number) => void;
}

/**
 * Batches documents into upserts and sends them one at a time. When the server refuses a
 * batch for what is in it (400: a document too large or malformed, over the per-request
 * limit; 413: body too large), the batch is split in halves and retried, down to single
 * documents, so only the documents at fault fail and the rest are imported. Any other refusal
 * (401, 403 — e.g. `max_vector_count` — 404, a 429 that cannot be waited out, 5xx after retries)
 * would fail every later batch too, so it is recorded and rethrown to stop the import.
 */
export class DocumentImporter {
  imported = 0;
  readonly failures: ImportFailure[] = [];
  private batch: ImportDocument[] = [];
  private batchBytes = 2;

  constructor(private readonly options: ImporterOptions) {}

  /** Ids of every document that failed. */
  get failedIds(): string[] {
    return this.failures.flatMap((failure) => failure.ids);
  }

  /** Queues a document; sends the batch first when this one would not fit in it. */
  async add(document: ImportDocument): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(document)) + 1;
    if (this.batch.length > 0 && this.batchBytes + bytes > this.options.maxBytes) await this.flush();
    this.batch.push(document);
    this.batchBytes += bytes;
    if (this.batch.length >= this.options.maxDocuments) await this.flush();
  }

  /** Sends what is queued. */
  async flush(): Promise<void> {
    const documents = this.batch;
    this.batch = [];
    this.batchBytes = 2;
    if (documents.length > 0) await this.send(documents);
  }

  private async send(documents: ImportDocument[]): Promise<void> {
    try {
      await this.options.upsert(documents);
    } catch (error) {
      const ids = documents.map((document) => document.id);
      if (!(error instanceof RemoteError) || !isAboutContent(error)) {
        this.failures.push({ ids, error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      if (documents.length === 1) {
        this.failures.push({ ids, error: error.message });
        return;
      }
      const half = Math.ceil(documents.length / 2);
      await this.send(documents.slice(0, half));
      await this.send(documents.slice(half));
      return;
    }
    this.imported += documents.length;
    this.options.onProgress?.(this.imported);
  }
}

/** A refusal caused by the documents of the batch, which a smaller batch may avoid. */
function isAboutContent(error: RemoteError): boolean {
  return error.kind === 'http' && (error.status === 400 || error.status === 413);
}
