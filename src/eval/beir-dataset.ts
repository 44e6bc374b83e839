import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** One corpus document (`corpus.jsonl`). */
export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

/** One evaluated query with its relevance judgments (document id → grade). */
export interface BeirQuery {
  id: string;
  text: string;
  judgments: Map<string, number>;
}

/** A BEIR-layout collection, reduced to what an evaluation needs. */
export interface BeirDataset {
  documents: BeirDocument[];
  /** Only the queries that have qrels for the split, in `queries.jsonl` order. */
  queries: BeirQuery[];
  /** Oddities that do not stop an evaluation (qrels naming unknown queries or documents). */
  warnings: string[];
}

/** A collection that cannot be read; `file` and `line` (1-based, when known) say where. */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    problem: string,
  ) {
    super(line === undefined ? `${file}: ${problem}` : `${file} line ${line}: ${problem}`);
    this.name = 'DatasetError';
  }
}

const SPLIT_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Reads `corpus.jsonl` (`{_id, title?, text}` per line), `queries.jsonl` (`{_id, text}`) and
 * `qrels/<split>.tsv` (`query-id corpus-id score`, tab-separated, an optional header line; the
 * four-column TREC form `query-id iteration corpus-id score` is read too) from `dir`. Blank lines
 * are skipped, other fields (`metadata`) ignored. Throws {@link DatasetError} naming the file and
 * line of the first malformed line, a duplicate id, or a missing file.
 */
export async function readBeirDataset(dir: string, split = 'test'): Promise<BeirDataset> {
  if (!SPLIT_NAME.test(split)) throw new DatasetError(dir, undefined, `invalid split name '${split}'`);
  const warnings: string[] = [];
  const documents: BeirDocument[] = [];
  const documentIds = new Set<string>();
  await readJsonLines(join(dir, 'corpus.jsonl'), (record, at) => {
    const id = idOf(record, at);
    const title = optionalString(record, 'title', at);
    const text = optionalString(record, 'text', at);
    if (documentIds.has(id)) throw at.error(`duplicate document _id '${id}'`);
    documentIds.add(id);
    documents.push({ id, title, text });
  });

  const queryTexts = new Map<string, string>();
  await readJsonLines(join(dir, 'queries.jsonl'), (record, at) => {
    const id = idOf(record, at);
    if (typeof record.text !== 'string') throw at.error(`query '${id}' has no string "text"`);
    if (queryTexts.has(id)) throw at.error(`duplicate query _id '${id}'`);
    queryTexts.set(id, record.text);
  });

  const judgments = await readQrels(join(dir, 'qrels', `${split}.tsv`));
  const unknownQueries = [...judgments.keys()].filter((id) => !queryTexts.has(id));
  if (unknownQueries.length > 0) {
    warnings.push(
      `${unknownQueries.length} queries in qrels/${split}.tsv are not in queries.jsonl and are skipped (e.g. '${unknownQueries[0]}')`,
    );
  }
  let unknownDocuments = 0;
  for (const grades of judgments.values()) for (const id of grades.keys()) if (!documentIds.has(id)) unknownDocuments++;
  if (unknownDocuments > 0) {
    warnings.push(
      `${unknownDocuments} qrels lines name documents missing from corpus.jsonl (they still count as relevant, as in pytrec_eval)`,
    );
  }
  const queries: BeirQuery[] = [];
  for (const [id, text] of queryTexts) {
    const grades = judgments.get(id);
    if (grades) queries.push({ id, text, judgments: grades });
  }
  return { documents, queries, warnings };
}

/** Where a record came from, and how to complain about it. */
interface LineRef {
  error(problem: string): DatasetError;
}

type JsonRecord = Record<string, unknown>;

async function readJsonLines(file: string, onRecord: (record: JsonRecord, at: LineRef) => void): Promise<void> {
  await readLines(file, (line, number) => {
    if (line.trim() === '') return;
    const at: LineRef = { error: (problem) => new DatasetError(file, number, problem) };
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw at.error(`not valid JSON (${(error as Error).message})`);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw at.error('not a JSON object');
    onRecord(record as JsonRecord, at);
  });
}

function idOf(record: JsonRecord, at: LineRef): string {
  const id = record._id;
  // Some exports write numeric ids; qrels hold them as text, so compare as text.
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id !== 'string' || id === '') throw at.error('"_id" must be a non-empty string');
  return id;
}

/** A string field that some corpora leave out or set to null (titles, mostly): '' then. */
function optionalString(record: JsonRecord, field: string, at: LineRef): string {
  const value = record[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw at.error(`"${field}" must be a string`);
  return value;
}

async function readQrels(file: string): Promise<Map<string, Map<string, number>>> {
  const byQuery = new Map<string, Map<string, number>>();
  let first = true;
  await readLines(file, (line, number) => {
    if (line.trim() === '') return;
    const fields = line.includes('\t') ? line.split('\t').map((field) => field.trim()) : line.trim().split(/\s+/);
    const isFirst = first;
    first = false;
    if (fields.length !== 3 && fields.length !== 4) {
      throw new DatasetError(file, number, `expected "query-id<TAB>corpus-id<TAB>score", got ${fields.length} fields`);
    }
    const [queryId, documentId, score] = fields.length === 3 ? fields : [fields[0], fields[2], fields[3]];
    if (!/^-?\d+$/.test(score)) {
      if (isFirst) return; // the header line
      throw new DatasetError(file, number, `score must be an integer, got '${score}'`);
    }
    if (queryId === '' || documentId === '') throw new DatasetError(file, number, 'empty query-id or corpus-id');
    const grades = byQuery.get(queryId) ?? new Map<string, number>();
    byQuery.set(queryId, grades);
    grades.set(documentId, Number(score));
  });
  return byQuery;
}

async function readLines(file: string, onLine: (line: string, number: number) => void): Promise<void> {
  if (!existsSync(file)) throw new DatasetError(file, undefined, 'file not found (expected the BEIR layout)');
  const input = createReadStream(file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  try {
    for await (const line of lines) {
      number++;
      onLine(number === 1 ? line.replace(/^\uFEFF/, '') : line, number);
    }
  } finally {
    lines.close();
    input.destroy();
  }
}
