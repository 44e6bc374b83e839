import type { SearchIndexRow } from '../store/repositories/search-index.repository.js';
import { type PlanName, QUOTA_FIELDS, type Quotas } from './plans.js';
import type { Region, SearchIndexRecord } from './search-index.service.js';

/** Records kept serialized (a few KB each); past this the least recently serialized one is dropped. */
const MAX_RECORDS = 2000;

export type RecordFields = Omit<SearchIndexRecord, 'throughput_vector'>;

/** The record of a stored row, every field but the throughput series, in the API's field order. */
export function recordFields(row: SearchIndexRow): RecordFields {
  const quotas = {} as Quotas;
  for (const field of QUOTA_FIELDS) quotas[field] = Number(row[field]);
  return {
    customer_id: row.customer_id,
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    type: row.type as PlanName,
    region: row.region as Region,
    integration_email: row.integration_email,
    token: row.token,
    read_only_token: row.read_only_token,
    ...quotas,
    creation_time: Number(row.creation_time),
    input_enrichment_enabled: Number(row.input_enrichment_enabled) === 1,
  };
}

const EMPTY = Buffer.alloc(0);

interface Serialized {
  row: SearchIndexRow;
  /** The record's JSON up to the value of `throughput_vector`. */
  prefix: string;
  series: string;
  body: Buffer;
}

/**
 * The JSON of index records, kept per index and reused while the row it was made from is unchanged
 * (compared field by field, so it can never outlive a rename, new tokens or new quotas: freshness
 * is entirely the row lookup's) and the series text is the same string. It is kept as UTF-8 bytes,
 * which a response sends as they are: a string would be measured, joined to the headers and
 * encoded again on every response.
 */
export class IndexRecordJson {
  private readonly entries = new Map<string, Serialized>();

  /** The whole record as JSON bytes: `row` with `seriesJson` as its `throughput_vector`. */
  body(row: SearchIndexRow, seriesJson: string): Buffer {
    let entry = this.entries.get(row.id);
    if (!entry || !(entry.row === row || sameRow(entry.row, row))) {
      const prefix = `${JSON.stringify(recordFields(row)).slice(0, -1)},"throughput_vector":`;
      entry = { row, prefix, series: '', body: EMPTY };
      this.entries.delete(row.id);
      if (this.entries.size >= MAX_RECORDS) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(row.id, entry);
    }
    // Keep the newest row object: while the read cache holds it, the next check is one comparison.
    entry.row = row;
    if (entry.series !== seriesJson) {
      entry.series = seriesJson;
      entry.body = Buffer.from(`${entry.prefix}${seriesJson}}`);
    }
    return entry.body;
  }

  /** Drops an index's kept JSON (it was changed or deleted). */
  forget(indexId: string): void {
    this.entries.delete(indexId);
  }
}

function sameRow(a: SearchIndexRow, b: SearchIndexRow): boolean {
  for (const key of Object.keys(a) as (keyof SearchIndexRow)[]) {
    if (a[key] !== b[key]) return false;
  }
  return Object.keys(b).length === Object.keys(a).length;
}
