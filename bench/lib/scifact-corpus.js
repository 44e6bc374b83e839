// The benchmark corpus: documents built deterministically from SciFact (read in place; the
// collection is CC BY-NC and is never copied into the repository), and the 300 SciFact test claims
// as queries. Every system under test rebuilds it from the same arguments, so all get the same text.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readBeirDataset } from '../../dist/eval/beir-dataset.js';

/** Seed of the generator that draws titles and sentences (fixed: runs are comparable). */
export const CORPUS_SEED = 20260522;

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

/**
 * `count` documents `{id, title, text}`: each a SciFact title and 2–4 sentences drawn from SciFact
 * abstracts, all picked by a generator seeded with {@link CORPUS_SEED}.
 */
export function buildDocuments(scifactDocuments, count) {
  const titles = scifactDocuments.map((doc) => doc.title.trim()).filter(Boolean);
  const sentences = [];
  for (const doc of scifactDocuments) {
    for (const sentence of doc.text.split(SENTENCE_BREAK))
      if (sentence.trim().length >= 20) sentences.push(sentence.trim());
  }
  const random = seededRandom(CORPUS_SEED);
  const pick = (items) => items[Math.floor(random() * items.length)];
  const width = String(Math.max(1, count - 1)).length;
  return Array.from({ length: count }, (_, i) => {
    const title = pick(titles);
    const text = Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(sentences)).join(' ');
    return { id: `d${String(i).padStart(width, '0')}`, title, text };
  });
}

/** A short hash of documents (or texts), so a child process can prove it built the same corpus. */
export function fingerprint(items) {
  const hash = createHash('sha256');
  for (const item of items)
    hash.update(typeof item === 'string' ? item : `${item.id}\u0000${item.title}\u0000${item.text}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * Reads SciFact from `datasetDir` and returns `{ scifact, documents, queries }`: SciFact's own
 * documents (`{id, title, text}`), `docs` generated documents, and the test claims (query texts).
 */
export async function loadCorpus(datasetDir, docs) {
  const dataset = await readBeirDataset(datasetDir, 'test');
  return {
    scifact: dataset.documents,
    documents: buildDocuments(dataset.documents, docs),
    queries: dataset.queries.map((query) => query.text),
  };
}

/**
 * The corpus in a child process: rebuilt from the parent's options (`datasetDir`, `docs`, `queries`:
 * how many to time) and checked against the parent's fingerprint (`expect`). `release()` drops the
 * documents and SciFact's texts, so the system's memory can be measured without the benchmark's copy.
 */
export async function childCorpus({ datasetDir, docs, expect, queries }) {
  const corpus = await loadCorpus(datasetDir, docs);
  if (fingerprint(corpus.documents) !== expect) throw new Error('corpus differs from the parent');
  return {
    documents: corpus.documents,
    queries: corpus.queries.slice(0, queries),
    release() {
      corpus.documents.length = 0;
      corpus.scifact.length = 0;
    },
  };
}

/** The single text the embedded peers index: title and sentences, as searchplane's flattened text. */
export const combinedText = (doc) => `${doc.title}\n${doc.text}`;
