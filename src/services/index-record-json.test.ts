import { describe, expect, test } from 'vitest';
import type { SearchIndexRow } from '../store/repositories/search-index.repository.js';
import { IndexRecordJson, recordFields } from './index-record-json.js';
import { DEFAULT_PLANS, quotasOf } from './plans.js';

const row: SearchIndexRow = {
  id: 'c0a80101-0000-4000-8000-000000000001',
  customer_id: 'owner@example.com',
  name: 'movies',
  endpoint: 'ready-llama-85084-usc1',
  type: 'payg',
  region: 'us-central1',
  integration_email: '',
  token: 'full-token',
  read_only_token: 'read-only-token',
  ...quotasOf(DEFAULT_PLANS.payg),
  creation_time: 1_795_308_103,
  input_enrichment_enabled: 1,
};
const series = '[{"x":"2026-11-22 14:05:00.000 +0000 UTC","y":3}]';

describe('IndexRecordJson', () => {
  test('writes the record with the series as its throughput_vector', () => {
    const body = new IndexRecordJson().body(row, series).toString();
    expect(JSON.parse(body)).toEqual({ ...recordFields(row), throughput_vector: JSON.parse(series) });
    expect(Object.keys(JSON.parse(body)).at(-1)).toBe('throughput_vector');
  });

  test('returns the same bytes while the row and the series are unchanged', () => {
    const records = new IndexRecordJson();
    const first = records.body(row, series);
    expect(records.body(row, series)).toBe(first);
    // An equal row read again (a new object, as every PostgreSQL read is) reuses it too.
    expect(records.body({ ...row }, `${series}`)).toBe(first);
  });

  test.each([
    ['name', { name: 'films' }],
    ['token', { token: 'rotated' }],
    ['read_only_token', { read_only_token: 'rotated-too' }],
    ['a quota', { max_daily_queries: 10 }],
    ['input enrichment', { input_enrichment_enabled: 0 }],
  ])('a changed %s is written at once', (_label, change) => {
    const records = new IndexRecordJson();
    records.body(row, series);
    const changed = { ...row, ...change };
    expect(JSON.parse(records.body(changed, series).toString())).toMatchObject(recordFields(changed));
  });

  test('a changed series is written at once, with the rest of the record unchanged', () => {
    const records = new IndexRecordJson();
    records.body(row, series);
    const later = '[{"x":"2026-11-22 14:06:00.000 +0000 UTC","y":0}]';
    expect(JSON.parse(records.body(row, later).toString()).throughput_vector).toEqual(JSON.parse(later));
  });
});
