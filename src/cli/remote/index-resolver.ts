import type { ApiClient, IndexRecord } from './api-client.js';
import { RemoteError } from './http-request.js';

/**
 * The account's index whose id or name is `ref` (an id match wins: names are unique per
 * account, but a name may look like someone else's id). Fails with one line when none matches.
 */
export async function resolveIndex(client: ApiClient, ref: string): Promise<IndexRecord> {
  const records = await client.get<IndexRecord[]>('/search');
  const found = records.find((record) => record.id === ref) ?? records.find((record) => record.name === ref);
  if (!found) {
    throw new RemoteError(
      `no index "${ref}" in ${client.target.email}'s account (give an index id or name)`,
      'http',
      404,
    );
  }
  return found;
}

/**
 * How many items one data-plane request may carry: the index's quota (`max_writes_per_request`
 * or `max_reads_per_request`), or `whenUnlimited` when the quota is -1.
 */
export function perRequestLimit(quota: number, whenUnlimited: number): number {
  return quota < 0 ? whenUnlimited : Math.max(1, quota);
}
