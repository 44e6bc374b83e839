import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TOPICS = [
  'clownfish',
  'volcano',
  'saxophone',
  'glacier',
  'lighthouse',
  'origami',
  'tornado',
  'espresso',
  'telescope',
  'cathedral',
  'marathon',
  'orchid',
  'submarine',
  'harmonica',
  'desert',
  'typewriter',
  'avalanche',
  'lantern',
  'penguin',
  'meteorite',
];

export interface GeneratedCollection {
  /** The document `exactTitleQuery` copies its title from; the only relevant one for it. */
  exactTitleDocument: string;
  exactTitleQuery: string;
  documents: number;
  /** Queries that have qrels (one more in queries.jsonl has none). */
  judgedQueries: number;
}

/**
 * Writes a small BEIR collection to `dir`: `documents` abstracts about distinct topics (the last
 * one longer than the engine's 4096-character content limit), five judged queries — the first one
 * the exact title of a document — and one query without qrels.
 */
export function writeBeirCollection(dir: string, documents = 20): GeneratedCollection {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const topic = (i: number) => `${TOPICS[i % TOPICS.length]}${i < TOPICS.length ? '' : ` series ${i}`}`;
  const corpus = Array.from({ length: documents }, (_, i) => ({
    _id: `doc-${i}`,
    title: i === 5 ? '' : `The ${topic(i)} handbook`,
    text:
      i === documents - 1
        ? `${topic(i)} notes. `.repeat(400)
        : `A short study of the ${topic(i)} and why people care about the ${topic(i)} today.`,
    metadata: {},
  }));
  const exactTitleDocument = 'doc-7';
  const queries = [
    { _id: 'q-title', text: corpus[7].title },
    { _id: 'q-graded', text: `${topic(3)} and ${topic(4)}` },
    { _id: 'q-nothing', text: 'quantum zebra' },
    { _id: 'q-untitled', text: `study of the ${topic(5)}` },
    { _id: 'q-second', text: `${topic(11)} study` },
    { _id: 'q-unjudged', text: topic(2) },
  ];
  const qrels = [
    ['q-title', exactTitleDocument, 1],
    ['q-graded', 'doc-3', 2],
    ['q-graded', 'doc-4', 1],
    ['q-nothing', 'doc-12', 1],
    ['q-untitled', 'doc-5', 1],
    ['q-second', 'doc-11', 1],
    ['q-second', 'doc-9', 0],
  ];
  writeBeirFiles(dir, {
    corpus,
    queries: queries.map((query) => ({ ...query, metadata: {} })),
    qrels: qrels as [string, string, number][],
  });
  return { exactTitleDocument, exactTitleQuery: queries[0].text, documents, judgedQueries: 5 };
}

/** Writes `corpus.jsonl`, `queries.jsonl` and `qrels/test.tsv` (with its header line) to `dir`. */
export function writeBeirFiles(
  dir: string,
  files: { corpus: object[]; queries: object[]; qrels: [query: string, document: string, grade: number][] },
): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const jsonl = (records: object[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
  writeFileSync(join(dir, 'corpus.jsonl'), jsonl(files.corpus));
  writeFileSync(join(dir, 'queries.jsonl'), jsonl(files.queries));
  writeFileSync(
    join(dir, 'qrels', 'test.tsv'),
    `query-id\tcorpus-id\tscore\n${files.qrels.map((line) => line.join('\t')).join('\n')}\n`,
  );
}
