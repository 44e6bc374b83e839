// The benchmark corpus: documents built deterministically from SciFact (read in place; the
// collection is CC BY-NC and is never copied into the repository), and the 300 SciFact test claims
// as queries. Every system under test rebuilds it from the same arguments, so all get the same text.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readBeirDataset } from '../../dist/eval/beir-dataset.js';

/** Seeds of the generators that draw titles and sentences (fixed: runs are comparable). */
export const CORPUS_SEED = 20260522;
const REALISTIC_SEED = 20261206;

/**
 * The corpora the benchmark builds, each document a SciFact title and whole SciFact sentences:
 * `realistic` as long as a random SciFact abstract (its length clamped to 1–2 KB), the length of
 * a typical document; `short` 2–4 sentences (about a third of that), the corpus of earlier runs.
 */
export const CORPUS_KINDS = ['realistic', 'short'];
const TEXT_MIN_CHARS = 1024;
const TEXT_MAX_CHARS = 2048;
/** Below the data plane's 4,096 characters of content text (title, line break and text). */
const CONTENT_MAX_CHARS = 4000;

/** Where SciFact is looked for, as the eval gate does: the variable alone, else beside the repo, else /work/shared. */
export function datasetCandidates(repoRoot, env) {
  if (env.SEARCHPLANE_EVAL_DATASET) return [env.SEARCHPLANE_EVAL_DATASET];
  return [path.join(repoRoot, '..', 'shared', 'datasets', 'scifact'), '/work/shared/datasets/scifact'];
}

/** The first candidate holding a `corpus.jsonl`, or throws naming every place looked at. */
export function findDataset(repoRoot, env) {
  const candidates = datasetCandidates(repoRoot, env);
  const found = candidates.find((dir) => existsSync(path.join(dir, 'corpus.jsonl')));
  if (!found) throw new Error(`SciFact not found at ${candidates.join(' or ')} (set SEARCHPLANE_EVAL_DATASET)`);
  return found;
}

/** mulberry32: small, fast and seedable. */
export function seededRandom(seed) {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sentence ends: a period, ! or ? followed by space and an upper-case letter, digit or bracket. */
const SENTENCE_BREAK = /(?<=[.!?])\s+(?=[A-Z0-9([])/;

/** SciFact's titles and its abstracts' sentences (at least 20 characters), as the generators draw them. */
function material(scifactDocuments) {
  const titles = scifactDocuments.map((doc) => doc.title.trim()).filter(Boolean);
  const sentences = [];
  for (const doc of scifactDocuments) {
    for (const sentence of doc.text.split(SENTENCE_BREAK))
      if (sentence.trim().length >= 20) sentences.push(sentence.trim());
  }
  const lengths = scifactDocuments.map((doc) => doc.text.length);
  return { titles, sentences, lengths };
}

/**
 * The `count` documents `{id, title, text}` of a corpus kind (see {@link CORPUS_KINDS}), one at a
 * time: the same sequence on every call, so a process can stream a million of them instead of
 * holding them.
 */
export function* generateDocuments(scifactDocuments, count, kind = 'realistic') {
  if (!CORPUS_KINDS.includes(kind)) throw new Error(`unknown corpus kind '${kind}'`);
  const { titles, sentences, lengths } = material(scifactDocuments);
  const random = seededRandom(kind === 'short' ? CORPUS_SEED : REALISTIC_SEED);
  const pick = (items) => items[Math.floor(random() * items.length)];
  const width = String(Math.max(1, count - 1)).length;
  for (let i = 0; i < count; i++) {
    const title = pick(titles);
    let text;
    if (kind === 'short') {
      text = Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(sentences)).join(' ');
    } else {
      const target = Math.min(TEXT_MAX_CHARS, Math.max(TEXT_MIN_CHARS, pick(lengths)));
      const parts = [];
      let length = -1;
      while (length < target) {
        const sentence = pick(sentences);
        if (title.length + length + sentence.length + 2 > CONTENT_MAX_CHARS) continue;
        parts.push(sentence);
        length += sentence.length + 1;
      }
      text = parts.join(' ');
    }
    yield { id: `d${String(i).padStart(width, '0')}`, title, text };
  }
}

/** The documents of {@link generateDocuments} as an array. */
export function buildDocuments(scifactDocuments, count, kind = 'realistic') {
  return [...generateDocuments(scifactDocuments, count, kind)];
}

/** The items of `iterable` in arrays of `size` (the last one shorter), one array at a time. */
export function* batches(iterable, size) {
  let batch = [];
  for (const item of iterable) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** A short hash of documents (or texts), so a child process can prove it built the same corpus. */
export function fingerprint(items) {
  const hash = createHash('sha256');
  for (const item of items)
    hash.update(typeof item === 'string' ? item : `${item.id}\u0000${item.title}\u0000${item.text}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** `{ fingerprint, textBytes, meanBytes }` of documents: their hash and the UTF-8 bytes of their text. */
export function corpusSummary(documents) {
  const hash = createHash('sha256');
  let textBytes = 0;
  let count = 0;
  for (const doc of documents) {
    hash.update(`${doc.id}\u0000${doc.title}\u0000${doc.text}\n`);
    textBytes += Buffer.byteLength(combinedText(doc));
    count++;
  }
  return { fingerprint: hash.digest('hex').slice(0, 16), textBytes, meanBytes: textBytes / Math.max(1, count) };
}

/**
 * Reads SciFact from `datasetDir` and returns `{ scifact, queries, documents() }`: SciFact's own
 * documents (`{id, title, text}`), the test claims (query texts), and a fresh iterator over the
 * `docs` generated documents of corpus `kind` at each call.
 */
export async function loadCorpus(datasetDir, docs, kind = 'realistic') {
  const dataset = await readBeirDataset(datasetDir, 'test');
  return {
    scifact: dataset.documents,
    documents: () => generateDocuments(dataset.documents, docs, kind),
    queries: dataset.queries.map((query) => query.text),
  };
}

/**
 * The corpus in a child process: rebuilt from the parent's options (`datasetDir`, `docs`, `kind`,
 * `queries`: how many to time) and checked against the parent's fingerprint (`expect`).
 * `release()` drops SciFact's texts, so the system's memory can be measured without the
 * benchmark's copy.
 */
export async function childCorpus({ datasetDir, docs, kind, expect, queries }) {
  const corpus = await loadCorpus(datasetDir, docs, kind);
  if (fingerprint(corpus.documents()) !== expect) throw new Error('corpus differs from the parent');
  return {
    documents: corpus.documents,
    total: docs,
    queries: corpus.queries.slice(0, queries),
    release() {
      corpus.scifact.length = 0;
    },
  };
}

/** The single text the embedded peers index: title and sentences, as searchplane's flattened text. */
export const combinedText = (doc) => `${doc.title}\n${doc.text}`;
