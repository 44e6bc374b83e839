import { QUOTA_FIELDS } from '../../../services/plans.js';
import type { ApiClient, IndexRecord } from '../api-client.js';
import { formatBytes, formatCount, formatFields, formatLimit, formatTable, formatTime, sparkline } from '../output.js';

/** An index record for `--json`: the API's fields plus the data-plane `url`. */
export function withUrl(client: ApiClient, record: IndexRecord): IndexRecord & { url: string } {
  return { ...record, url: client.dataPlaneOf(record).url };
}

/** The list as a table; tokens are left to `indexes get`. */
export function indexTable(client: ApiClient, records: IndexRecord[]): string {
  if (records.length === 0)
    return 'no indexes yet: create one with `searchplane indexes create <name> --region <region> --type <plan>`';
  const rows = records.map((record) => [
    record.name,
    record.id,
    record.region,
    record.type,
    client.dataPlaneOf(record).url,
  ]);
  return formatTable(['NAME', 'ID', 'REGION', 'PLAN', 'URL'], rows);
}

/** One index with its URL, tokens and quotas. */
export function indexDetails(client: ApiClient, record: IndexRecord): string {
  return formatFields([
    ['name', record.name],
    ['id', record.id],
    ['region', record.region],
    ['plan', record.type],
    ['endpoint', record.endpoint],
    ['url', client.dataPlaneOf(record).url],
    ['token', record.token],
    ['read-only token', record.read_only_token],
    ['created', formatTime(record.creation_time)],
    ['input enrichment', record.input_enrichment_enabled ? 'on' : 'off'],
    ...QUOTA_FIELDS.map((field): [string, string] => [field, formatLimit(record[field])]),
  ]);
}

interface Point {
  y: number;
}

/** The usage counters of `GET /v2/search/{id}/stats`, with sparklines of the throughput. */
export function statsDetails(stats: Record<string, unknown>, period: string): string {
  const count = (field: string) => formatCount(stats[field]);
  const series = (field: string) => {
    const points = (stats[field] as Point[] | undefined) ?? [];
    const total = points.reduce((sum, point) => sum + point.y, 0);
    return `${sparkline(points.map((point) => point.y))}  ${formatCount(total)} in ${period}`;
  };
  return formatFields([
    ['documents', `${count('current_vector_count')} (${count('pending_index_count')} waiting for the vector index)`],
    ['storage', formatBytes(Number(stats.storage_usage ?? 0))],
    ['today', `${count('daily_query_count')} queries, ${count('daily_update_count')} updates`],
    [
      'this month',
      `${count('monthly_query_count')} queries, ${count('monthly_update_count')} updates, ` +
        `${formatBytes(Number(stats.monthly_bandwidth_usage ?? 0))} bandwidth, ${count('monthly_rerank_count')} reranks`,
    ],
    ['queries', series('query_throughput')],
    ['updates', series('update_throughput')],
  ]);
}
