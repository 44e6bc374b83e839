import type { TermStatistics, Vocabulary } from '../../providers/provider-types.js';
import type { AnalyzedQuery } from '../../query/analyzer.js';
import type { VectorCode } from '../vector-codes.js';
import { bestFirst, type Scored } from '../vector-math.js';
import {
  type EmbeddedVectors,
  type IndexedDocuments,
  type ShardStatistics,
  SPELLING_DISTANCE,
  type StatisticsOptions,
  type SummedStatistics,
} from './text-shard-protocol.js';
import type { TextShards } from './text-shards.js';

/** What a search learns from the shards before it scores: statistics over all of them, maybe a vector. */
export interface QueryStatistics extends SummedStatistics {
  /** The query's vector from shard 0, when asked for. */
  vector?: Float32Array;
  /**
   * The namespace's words as an enricher sees them, for the words asked about: whether each word's
   * term is known, and spelling candidates of the unknown ones (up to {@link SPELLING_DISTANCE}
   * edits, a superset for any smaller distance: callers verify).
   */
  vocabulary?: Vocabulary;
}

/**
 * The full-text index of one namespace, split over the engine's text shards (see {@link
 * TextShards}): each shard holds the document versions whose label modulo the shard count is its
 * number. Writes are sent in commit order and each shard handles its messages in order, so a
 * search sent after a write was sent sees it. A search is two rounds: the shards' counts for the
 * query's terms, summed here, then each shard's best documents scored with those sums, which gives
 * the same scores as one index holding every document; the best of all shards are the top k.
 */
export class ShardedText {
  /**
   * Set when a shard lost part of the namespace (its thread died, or it failed to take a write):
   * its owner builds it again at its next use, and a search that ran on it is not to be trusted.
   */
  lost = false;
  /** What made a shard lose part of the namespace, when known. */
  lostBecause: unknown;
  /** Expansions asked for so far: they go to the shards in turn. */
  private expansions = 0;

  constructor(
    private readonly shards: TextShards,
    /** Unique per open namespace in the process: names its shards in every worker. */
    readonly key: string,
  ) {}

  get count(): number {
    return this.shards.count;
  }

  /**
   * Opens every shard (from its snapshot file when usable) over the index's SQLite file
   * `database`; resolves to the labels they hold.
   */
  async open(database: string, file: (shard: number) => string | undefined): Promise<number[]> {
    const replies = await this.all((shard) => ({ type: 'open', key: this.key, database, file: file(shard) }));
    return replies.flatMap((reply) => Array.from((reply as { labels: Float64Array }).labels));
  }

  /**
   * Indexes committed document versions, which each shard reads from SQLite; resolves to the labels
   * indexed (versions replaced or deleted since are not) and, with `embedder` (a lexical embedder's
   * name), the codes of their vectors, made by each shard with its own statistics, and the time the
   * shards spent making them.
   */
  async add(
    labels: number[],
    embedder?: string,
  ): Promise<{ labels: number[]; ids: string[]; codes: VectorCode[]; seconds: number }> {
    const parts = this.split(labels, (label) => label);
    const replies = (await Promise.all(
      parts.map((part, shard) => {
        if (part.length === 0) return undefined;
        const array = Float64Array.from(part);
        return this.shards.request(shard, { type: 'add', key: this.key, labels: array, embedder }, [array.buffer]);
      }),
    )) as (IndexedDocuments | undefined)[];
    const indexed: number[] = [];
    const ids: string[] = [];
    const codes: VectorCode[] = [];
    let seconds = 0;
    for (const reply of replies) {
      if (!reply) continue;
      indexed.push(...reply.labels);
      if (reply.codes) codes.push(...unpack(reply.codes, reply.labels.length));
      if (reply.ids) ids.push(...reply.ids);
      seconds += reply.seconds ?? 0;
    }
    return { labels: indexed, ids, codes, seconds };
  }

  /**
   * Vectors of documents not written yet (PostgreSQL mode embeds before it writes), spread over
   * the shards, each weighting them by its statistics of the namespace.
   */
  async embed(fields: string[][], embedder: string): Promise<{ vectors: Float32Array[]; seconds: number }> {
    const parts = Array.from({ length: this.shards.count }, (_, shard) =>
      fields.filter((_doc, i) => i % this.shards.count === shard),
    );
    const replies = (await Promise.all(
      parts.map((part, shard) =>
        part.length === 0
          ? undefined
          : this.shards.request(shard, { type: 'embed', key: this.key, fields: part, embedder }),
      ),
    )) as (EmbeddedVectors | undefined)[];
    const unpacked = replies.map((reply, shard) => (reply ? unpack(reply.vectors, parts[shard].length) : []));
    return {
      vectors: fields.map((_doc, i) => unpacked[i % this.shards.count][Math.floor(i / this.shards.count)]),
      seconds: replies.reduce((sum, reply) => sum + (reply?.seconds ?? 0), 0),
    };
  }

  /** Removes document versions (those no shard holds are ignored). */
  async remove(labels: number[]): Promise<void> {
    const parts = this.split(labels, (label) => label);
    await Promise.all(
      parts.map((part, shard) => {
        if (part.length === 0) return undefined;
        const array = Float64Array.from(part);
        return this.shards.request(shard, { type: 'remove', key: this.key, labels: array }, [array.buffer]);
      }),
    );
  }

  /**
   * Counts of the query's terms summed over the shards; with `embedQuery`, the query's vector too
   * (from shard 0, weighted by its statistics); with `spelling`, the namespace's vocabulary as an
   * enricher sees it for those words (see {@link QueryStatistics.vocabulary}).
   */
  async statistics(terms: string[], options: StatisticsOptions = {}): Promise<QueryStatistics> {
    const { embedQuery, spelling } = options;
    const replies = (await this.all((shard) => ({
      type: 'statistics',
      key: this.key,
      terms,
      embedQuery: shard === 0 ? embedQuery : undefined,
      spelling,
    }))) as ShardStatistics[];
    const summed: QueryStatistics = { terms, documents: 0, totalLength: 0, dfs: terms.map(() => 0) };
    for (const reply of replies) {
      summed.documents += reply.documents;
      summed.totalLength += reply.totalLength;
      for (let i = 0; i < terms.length; i++) summed.dfs[i] += reply.dfs[i];
    }
    summed.vector = replies[0].vector;
    if (spelling) summed.vocabulary = vocabularyOf(spelling, replies, summed);
    return summed;
  }

  /** The best `k` documents by BM25 over every shard, best first (ties by label); with `filter`, only those. */
  async search(
    query: AnalyzedQuery,
    k: number,
    filter: Set<number> | undefined,
    statistics: SummedStatistics,
  ): Promise<Scored[]> {
    const filters = filter ? this.split([...filter], (label) => label).map((part) => Float64Array.from(part)) : [];
    const replies = await this.all(
      (shard) => ({ type: 'search', key: this.key, query, k, filter: filters[shard], statistics: plain(statistics) }),
      (shard) => (filters[shard] ? [filters[shard].buffer as ArrayBuffer] : []),
    );
    return replies
      .flatMap((reply) => scoredList(reply))
      .sort(bestFirst)
      .slice(0, k);
  }

  /** BM25 of the given documents (those no shard holds, or matching no term, are absent). */
  async scores(query: AnalyzedQuery, labels: number[], statistics: SummedStatistics): Promise<Map<number, number>> {
    const parts = this.split(labels, (label) => label);
    const replies = await Promise.all(
      parts.map((part, shard) =>
        part.length === 0
          ? undefined
          : this.shards.request(shard, {
              type: 'scores',
              key: this.key,
              query,
              labels: part,
              statistics: plain(statistics),
            }),
      ),
    );
    const scores = new Map<number, number>();
    for (const reply of replies) {
      if (reply) for (const { label, score } of scoredList(reply)) scores.set(label, score);
    }
    return scores;
  }

  /**
   * The query expanded from its best matches (their text fields and scores), by one shard in turn:
   * analysing ten documents is work the main thread, which serves every request, should not do.
   */
  async expand(query: AnalyzedQuery, feedback: { fields: string[]; score: number }[]): Promise<AnalyzedQuery> {
    const shard = this.expansions++ % this.shards.count;
    return (await this.shards.request(shard, { type: 'expand', query, feedback })) as AnalyzedQuery;
  }

  /** Writes every shard's snapshot file (when the shard is worth one). */
  async snapshot(file: (shard: number) => string): Promise<void> {
    await this.all((shard) => ({ type: 'snapshot', key: this.key, file: file(shard) }));
  }

  /** Drops every shard, writing their snapshot files first when `file` is given. */
  async close(file?: (shard: number) => string): Promise<void> {
    await this.all((shard) => ({ type: 'close', key: this.key, file: file?.(shard) }));
  }

  private all(
    message: (shard: number) => Parameters<TextShards['request']>[1],
    transfer: (shard: number) => ArrayBuffer[] = () => [],
  ): Promise<unknown[]> {
    return Promise.all(
      Array.from({ length: this.shards.count }, (_, shard) =>
        this.shards.request(shard, message(shard), transfer(shard)),
      ),
    );
  }

  private split<T>(items: readonly T[], labelOf: (item: T) => number): T[][] {
    const parts = Array.from({ length: this.shards.count }, (): T[] => []);
    for (const item of items) parts[labelOf(item) % parts.length].push(item);
    return parts;
  }
}

function vocabularyOf(
  spelling: { words: string[]; terms: string[] },
  replies: ShardStatistics[],
  summed: SummedStatistics,
): Vocabulary {
  const dfs = new Map(summed.terms.map((term, i) => [term, summed.dfs[i]]));
  const known = new Set<string>();
  const candidates = new Map<string, string[]>();
  spelling.words.forEach((word, i) => {
    if ((dfs.get(spelling.terms[i]) ?? 0) > 0) known.add(word);
    else candidates.set(word, [...new Set(replies.flatMap((reply) => reply.candidates?.[i] ?? []))]);
  });
  return { has: (word) => known.has(word), candidates: (word) => candidates.get(word) ?? [] };
}

/** The statistics as plain data (a {@link QueryStatistics} may carry a vector the shards need not get). */
function plain(statistics: SummedStatistics): SummedStatistics {
  const { terms, documents, totalLength, dfs } = statistics;
  return { terms, documents, totalLength, dfs };
}

/** `count` vectors (or codes) packed back to back in one array, as views of it. */
function unpack<T extends Float32Array | Uint8Array>(packed: T, count: number): T[] {
  const dimensions = packed.length / count;
  return Array.from({ length: count }, (_, i) => packed.subarray(i * dimensions, (i + 1) * dimensions) as T);
}

function scoredList(reply: unknown): Scored[] {
  const { labels, scores } = reply as { labels: Float64Array; scores: Float64Array };
  const list: Scored[] = new Array(labels.length);
  for (let i = 0; i < labels.length; i++) list[i] = { label: labels[i], score: scores[i] };
  return list;
}

/** The statistics of a query's terms as providers read them (other terms count as absent). */
export function termStatistics(statistics: SummedStatistics): TermStatistics {
  const dfs = new Map(statistics.terms.map((term, i) => [term, statistics.dfs[i]]));
  return {
    documentCount: statistics.documents,
    documentFrequency: (term) => dfs.get(term) ?? 0,
    trigramFrequency: () => 0,
  };
}
