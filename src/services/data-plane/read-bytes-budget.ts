import type { ReadBudget } from '../../engine/contract.js';
import { type AppError, errors } from '../../errors.js';

/** One request's share of a {@link ReadBytesBudget}: reserved as its reads find documents, released once. */
export interface ReadLease extends ReadBudget {
  /** Returns what the request holds; further calls do nothing. Call when its answer has been sent. */
  release(): void;
  /** Bytes this read holds now. */
  readonly holding: number;
}

/**
 * Reads that reserve at most this much are always admitted: a default search (10 hits, read with a
 * margin of 8 rows) of documents up to about 50 KB stored each, or a page of small ones. They cannot
 * multiply memory the way large pages do, and a client hoarding the budget with a large answer it
 * does not read must not stop the searches of every index on the node.
 */
export const SMALL_READ_BYTES = 4 * 1_048_576;

/**
 * The part of the capacity that one index's large reads may hold together once it holds more than
 * one: the rest stays for the other indexes, so the clients of one index (a tenant that pages
 * through everything at once, or opens large reads and does not read the answers until their
 * deadline) cannot keep every other index's large reads out.
 */
export const INDEX_SHARE = 0.5;

/**
 * A bound on the memory that reads (search, fetch, range with data or metadata) hold for their
 * documents in this process at once. A read's documents are parsed into objects, serialized into
 * its answer and kept until the socket takes the answer; 30 concurrent pages of 1,000 documents with
 * 47 KB of metadata each (within every documented limit) took a node from 228 MB to 3.1 GB
 * (`npm run bench:read-memory`). Each read reserves what its rows will cost (the engine counts four
 * times their stored size, which it reads before the rows) and keeps it until its answer has been
 * sent, slow readers included; a read that would pass the bound is refused with 503 and
 * Retry-After before it has read any document. A small read (up to {@link SMALL_READ_BYTES}) is
 * always admitted, and a large one whenever no other large read holds a share, so no answer within
 * the request limits is refused on an idle node. The HTTP layer releases a read's share
 * when its answer has been sent or its connection is gone, and gives an answer that holds a share
 * a deadline (a client that stops reading would hold it for ever). With the default
 * 256 MiB the same 30 pages peaked at 525 MB: one answered, 29 told to retry. A large read is
 * also refused while another large read of its index holds a share and the two would pass
 * {@link INDEX_SHARE} of the capacity (one read alone is never refused for its index's share).
 */
export class ReadBytesBudget {
  private held = 0;
  /** What large reads (those holding more than SMALL_READ_BYTES) hold. */
  private largeHeld = 0;
  /** What large reads hold, per index (an index holding none has no entry). */
  private readonly largeByIndex = new Map<string, number>();

  constructor(readonly capacity: number) {}

  /** Bytes reserved by reads whose answers are not sent yet. */
  get inFlight(): number {
    return this.held;
  }

  /** Indexes whose large reads hold a share now (for tests of the bookkeeping). */
  get indexesHoldingLargeReads(): number {
    return this.largeByIndex.size;
  }

  /** A share for one read of `indexId`'s documents. */
  lease(indexId: string): ReadLease {
    let mine = 0;
    let released = false;
    return {
      reserve: (bytes: number) => {
        // After the release the client is gone (its connection closed mid-read): nothing will be
        // sent, and the read's memory is garbage as soon as it ends.
        if (bytes <= 0 || released) return;
        const total = mine + bytes;
        if (total > SMALL_READ_BYTES) {
          // A large read waits only for other large reads: small ones come and go all the time on a
          // busy node, and waiting for none to be held would refuse a large page for good.
          // What this read already counts among the large ones (nothing while it was small).
          const ownLarge = mine > SMALL_READ_BYTES ? mine : 0;
          if (this.largeHeld > ownLarge && this.held + bytes > this.capacity) throw busy();
          const indexLarge = this.largeByIndex.get(indexId) ?? 0;
          const otherOfIndex = indexLarge - ownLarge;
          if (otherOfIndex > 0 && otherOfIndex + total > this.capacity * INDEX_SHARE) throw busy();
          this.largeHeld += total - ownLarge;
          this.largeByIndex.set(indexId, indexLarge + total - ownLarge);
        }
        this.held += bytes;
        mine = total;
      },
      release: () => {
        if (released) return;
        released = true;
        this.held -= mine;
        if (mine > SMALL_READ_BYTES) {
          this.largeHeld -= mine;
          const left = (this.largeByIndex.get(indexId) ?? 0) - mine;
          if (left > 0) this.largeByIndex.set(indexId, left);
          else this.largeByIndex.delete(indexId);
        }
        mine = 0;
      },
      get holding() {
        return mine;
      },
    };
  }
}

function busy(): AppError {
  return errors.retrySoon(
    'Too many large reads are being answered on this node; retry in a moment, or read fewer documents per request',
  );
}
