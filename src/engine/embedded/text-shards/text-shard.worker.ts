/**
 * A text shard worker thread (started through text-shard-entry.js). It holds one shard of the
 * full-text index of every open namespace it was asked to serve, keyed by the main thread's
 * `key`, and does the per-document work of indexing there: reading the committed document from
 * SQLite, analysis, full-text insertion and, for the builtin lexical embedder, the document vectors
 * (weighted by the shard's statistics). Searches
 * ask it for its statistics of the query's terms and then, with the statistics summed over every
 * shard, for its best documents: BM25 over the union, exactly as one index would score it.
 *
 * Messages are handled in order, one at a time: a search sent after a write sees it. Protocol:
 * see text-shard-protocol.ts. Every request gets one reply `{ id, result }` or `{ id, error }`.
 */

import { stat } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type { Embedder, TermStatistics } from '../../providers/provider-types.js';
import { type AnalyzedDocument, analyzeFields } from '../../query/analyzer.js';
import { expandQuery } from '../../query/feedback.js';
import { collectGarbage } from '../exposed-gc.js';
import { type CollectionStatistics, FullTextIndex } from '../full-text/full-text-index.js';
import { readFullTextSnapshot, writeFullTextSnapshot } from '../full-text/full-text-snapshot.js';
import { IdleCollection } from '../idle-collection.js';
import { lowerPrioritySuffices, lowerThreadPriority } from '../thread-priority.js';
import { encodeVector } from '../vector-codes.js';
import { normalize } from '../vector-math.js';
import { errorReply } from '../worker-client.js';
import { lexicalEmbedder } from './lexical-embedders.js';
import { loadSqlite, ShardDocuments, type StoredText } from './shard-documents.js';
import {
  type ShardRequest,
  type ShardStatistics,
  SPELLING_DISTANCE,
  type StatisticsOptions,
} from './text-shard-protocol.js';

/**
 * Shard threads run a little below the main thread's priority (nice 5: a third of its share when
 * both want a core): the main thread takes every request in and coordinates every search, so a
 * burst of indexing here must not keep it waiting. The vector workers stay below both (nice 19).
 */
const SHARD_NICE = 5;
// Threads inherit the nice value of the thread that creates them, and libuv's thread pool (file
// I/O, scrypt, DNS for the whole process) is created by its first user: make sure it exists before
// this thread lowers itself.
void stat('.')
  .catch(() => undefined)
  .then(() => {
    if (lowerPrioritySuffices()) lowerThreadPriority(SHARD_NICE);
  });

/** Shards smaller than this get no snapshot file: rebuilding them from SQLite takes well under a second. */
const SNAPSHOT_MIN_DOCUMENTS = 2500;

/** A namespace's shard: its full-text index and the documents of its index. */
interface Shard {
  text: FullTextIndex;
  database: string;
}

const shards = new Map<string, Shard>();

const embedders = new Map<string, Embedder>();
/** This thread's collector: a burst of writes leaves the analyses' garbage behind (see idle-collection.ts). */
const idle = new IdleCollection(collectGarbage);

const port = parentPort;
if (!port) throw new Error('text-shard.worker must run in a worker thread');
loadSqlite();

port.on('message', (message: ShardRequest & { id: number }) => {
  if (message.type === 'crash') throw new Error('crash requested'); // tests: an uncaught worker error
  handle(message).then(
    ({ result, transfer }) => port.postMessage({ id: message.id, result }, transfer ?? []),
    (error) => port.postMessage(errorReply(message.id, error)),
  );
});

type Handled = { result: unknown; transfer?: ArrayBuffer[] };

async function handle(message: ShardRequest): Promise<Handled> {
  switch (message.type) {
    case 'open':
      return open(message.key, message.database, message.file);
    case 'add':
      return add(message.key, message.labels, message.embedder);
    case 'remove': {
      const text = textOf(message.key);
      let removed = 0;
      for (const label of message.labels) if (text.remove(label)) removed++;
      return { result: removed };
    }
    case 'statistics':
      return statistics(message.key, message.terms, message);
    case 'search': {
      const text = textOf(message.key);
      const filter = message.filter ? new Set(message.filter) : undefined;
      const hits = text.search(message.query, message.k, filter, collection(message.statistics));
      return scored(hits);
    }
    case 'scores': {
      const scores = textOf(message.key).scores(message.query, message.labels, collection(message.statistics));
      return scored([...scores].map(([label, score]) => ({ label, score })));
    }
    case 'expand': {
      const feedback = message.feedback.map(({ fields, score }) => ({ score, analysis: analyzeFields(fields) }));
      return { result: expandQuery(message.query, feedback) };
    }
    case 'embed':
      return embed(message.key, message.fields, message.embedder);
    case 'snapshot':
      return { result: await snapshot(message.key, message.file) };
    case 'close': {
      const written = message.file ? await snapshot(message.key, message.file) : false;
      close(message.key);
      return { result: written };
    }
    default:
      throw new Error(`unknown request ${(message as { type: string }).type}`);
  }
}

function shardOf(key: string): Shard {
  const shard = shards.get(key);
  if (!shard) throw new Error(`text shard ${key} is not open`);
  return shard;
}

function textOf(key: string): FullTextIndex {
  return shardOf(key).text;
}

/**
 * Opens the shard from its snapshot file when there is a usable one, over the index's SQLite file;
 * answers the labels it holds.
 */
function open(key: string, database: string, file: string | undefined): Handled {
  let shard = shards.get(key);
  if (!shard) {
    const state = file ? readFullTextSnapshot(file) : undefined;
    shard = { text: state ? FullTextIndex.fromState(state) : new FullTextIndex(), database };
    shards.set(key, shard);
  }
  const labels = Float64Array.from(shard.text.labelSet());
  return { result: { labels }, transfer: [labels.buffer] };
}

function close(key: string): void {
  shards.delete(key);
}

/**
 * Indexes committed documents, read from SQLite (a label already held is skipped: a replayed write;
 * one that no longer exists is skipped too), and with `embedder` answers the codes of their vectors,
 * made with the shard's statistics, which count the documents just added.
 */
function add(key: string, labels: Float64Array, embedderName: string | undefined): Handled {
  const { text, database } = shardOf(key);
  // A connection per batch: each holds three file descriptors (the file, its WAL and shared
  // memory), which an index with nothing being written should not keep here, and opening one
  // costs little beside a batch's analysis.
  const documents = new ShardDocuments(database);
  let stored: StoredText[];
  try {
    stored = documents.texts(labels);
  } finally {
    documents.close();
  }
  const analyses = stored.map((doc) => analyzeFields(doc.fields));
  for (let i = 0; i < stored.length; i++) text.add(stored[i].label, analyses[i]);
  idle.note(stored.length);
  const found = Float64Array.from(stored, (doc) => doc.label);
  if (!embedderName) return { result: { labels: found }, transfer: [found.buffer] };
  const embedder = embedderNamed(embedderName);
  const started = performance.now();
  const vectors = embedder.embedTerms!(analyses, text);
  const size = embedder.dimensions! + 4;
  const codes = new Uint8Array(vectors.length * size);
  vectors.forEach((vector, i) => {
    if (vector.length + 4 !== size) throw new Error(`embedder produced ${vector.length} dimensions`);
    codes.set(encodeVector(normalize(vector)), i * size);
  });
  return {
    result: { labels: found, ids: stored.map((doc) => doc.id), codes, seconds: (performance.now() - started) / 1000 },
    transfer: [found.buffer, codes.buffer],
  };
}

/** Vectors of documents that are not written yet, with the shard's statistics (when it is open). */
function embed(key: string | undefined, fields: string[][], embedderName: string): Handled {
  const embedder = embedderNamed(embedderName);
  const analyses = fields.map((docFields) => analyzeFields(docFields));
  const text = key === undefined ? undefined : shards.get(key)?.text;
  const started = performance.now();
  const vectors = packVectors(embedder.embedTerms!(analyses, withBatch(text, analyses)), embedder.dimensions!);
  return {
    result: { vectors, seconds: (performance.now() - started) / 1000 },
    transfer: [vectors.buffer as ArrayBuffer],
  };
}

/**
 * This shard's counts for the query's terms, with spelling candidates of the words whose term it
 * does not know when asked; shard 0 also embeds the query when asked.
 */
async function statistics(key: string, terms: string[], { embedQuery, spelling }: StatisticsOptions): Promise<Handled> {
  const text = textOf(key);
  const counts = text.termStatistics(terms);
  const result: ShardStatistics = {
    documents: counts.documents,
    totalLength: counts.totalLength,
    dfs: counts.dfs,
  };
  if (spelling) {
    result.candidates = spelling.words.map((word, i) =>
      text.knows(spelling.terms[i]) ? [] : text.spellingCandidates(word, SPELLING_DISTANCE),
    );
  }
  if (!embedQuery) return { result };
  const [vector] = await embedderNamed(embedQuery.embedder).embed([embedQuery.text], text);
  result.vector = normalize(vector);
  return { result, transfer: [result.vector.buffer as ArrayBuffer] };
}

async function snapshot(key: string, file: string): Promise<boolean> {
  const text = textOf(key);
  if (text.size < SNAPSHOT_MIN_DOCUMENTS) return false;
  await writeFullTextSnapshot(file, text.toState());
  return true;
}

function embedderNamed(name: string): Embedder {
  let embedder = embedders.get(name);
  if (!embedder) {
    embedder = lexicalEmbedder(name);
    if (!embedder?.embedTerms || embedder.dimensions === undefined) {
      throw new Error(`embedder '${name}' does not run in text shards`);
    }
    embedders.set(name, embedder);
  }
  return embedder;
}

/** Statistics summed over the shards, as the main thread sends them. */
function collection(statistics: ShardStatistics & { terms: string[] }): CollectionStatistics {
  const dfs = new Map(statistics.terms.map((term, i) => [term, statistics.dfs[i]]));
  return {
    documents: statistics.documents,
    totalLength: statistics.totalLength,
    documentFrequency: (term) => dfs.get(term) ?? 0,
  };
}

/** Normalized vectors back to back in one array, so that they travel without copying. */
function packVectors(vectors: Float32Array[], dimensions: number): Float32Array {
  const packed = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, i) => {
    if (vector.length !== dimensions) throw new Error(`embedder produced ${vector.length} dimensions`);
    packed.set(normalize(vector), i * dimensions);
  });
  return packed;
}

function scored(hits: { label: number; score: number }[]): Handled {
  const labels = Float64Array.from(hits, (hit) => hit.label);
  const scores = Float64Array.from(hits, (hit) => hit.score);
  return { result: { labels, scores }, transfer: [labels.buffer, scores.buffer] };
}

/**
 * A batch weighs in the statistics only while the shard is small; past this many times the batch's
 * size, its share of the counts is too small to change any weight that matters.
 */
const BATCH_SHARE_LIMIT = 20;

/**
 * Statistics of the shard with a batch of documents that is not in it (yet) added, so that the
 * first documents of a namespace are weighted by something better than nothing.
 */
function withBatch(base: FullTextIndex | undefined, docs: readonly AnalyzedDocument[]): TermStatistics {
  if (base && base.documentCount >= BATCH_SHARE_LIMIT * docs.length) return base;
  const df = new Map<string, number>();
  const trigrams = new Map<string, number>();
  for (const doc of docs) {
    for (const term of doc.terms) {
      df.set(term.text, (df.get(term.text) ?? 0) + 1);
      for (const trigram of term.trigrams) trigrams.set(trigram, (trigrams.get(trigram) ?? 0) + 1);
    }
  }
  return {
    documentCount: (base?.documentCount ?? 0) + docs.length,
    documentFrequency: (term) => (base?.documentFrequency(term) ?? 0) + (df.get(term) ?? 0),
    trigramFrequency: (trigram) => (base?.trigramFrequency(trigram) ?? 0) + (trigrams.get(trigram) ?? 0),
  };
}
