import type { ApiClient, IndexRecord } from './api-client.js';
import { RemoteError } from './http-request.js';

/**
 * The account's index whose id or name is `ref` (an id match wins: names are unique per
 * account, but a name may look like someone else's id). Fails with one line when none matches.
 */
export async function resolveIndex(client: ApiClient, ref: string): Promise<IndexRecord> {
  return byIdOrName(await client.get<IndexRecord[]>('/search'), ref, 'an index', client.target.email);
}

/** The one of `records` whose id, else name, is `ref`; a 404 naming `noun` when none is. */
export function byIdOrName<T extends { id: string; name: string }>(
  records: T[],
  ref: string,
  noun: string,
  email: string,
): T {
  const found = records.find((record) => record.id === ref) ?? records.find((record) => record.name === ref);
  if (!found) {
    const kind = noun.replace(/^an? /, '');
    throw new RemoteError(`no ${kind} "${ref}" in ${email}'s account (give ${noun} id or name)`, 'http', 404);
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
