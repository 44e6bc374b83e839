import { AppError } from '../../errors.js';
import { type Clock, systemClock } from '../clock.js';
import { QUOTA_FIELDS, type Quotas } from '../plans.js';
import type { SearchIndexService } from '../search-index.service.js';
import { safeEqual } from '../secrets.js';
import type { QuotaSubject } from './quota-guard.service.js';

/** The routes of the per-index API, as the `@upstash/search` SDK names them in its paths. */
export const DATA_PLANE_ROUTES = [
  'upsert-data',
  'search',
  'fetch',
  'delete',
  'range',
  'reset',
  'delete-namespace',
  'info',
  'list-namespaces',
] as const;
export type DataPlaneRoute = (typeof DATA_PLANE_ROUTES)[number];

/** What a read-only token may call; everything else needs the index's full token. */
export const READ_ONLY_ROUTES: ReadonlySet<DataPlaneRoute> = new Set([
  'search',
  'fetch',
  'range',
  'info',
  'list-namespaces',
]);

/** An authenticated data-plane caller: the index its token belongs to, read from the store now. */
export interface DataPlaneCaller extends QuotaSubject {
  endpoint: string;
  readOnly: boolean;
  inputEnrichmentEnabled: boolean;
  /** PostgreSQL mode: the index data's last change number, read with the token (see OpenOptions). */
  recordHead?: number;
}

/** Endpoint names are short; anything longer cannot exist, so it is refused without a query. */
const MAX_ENDPOINT_LENGTH = 128;

/**
 * Bearer-token authentication of the data plane. The index row is read on every request rather
 * than cached: the lookup is one indexed query, and it makes rotated tokens, deleted indexes
 * and changed quotas take effect at the very next request on every node.
 */
export class DataPlaneAuthenticator {
  constructor(
    private readonly indexes: Pick<SearchIndexService, 'findByEndpoint'>,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Resolves the caller of `endpoint` from an `Authorization` header. Throws `unauthorized` for a
   * missing or malformed header, an unknown endpoint and a token of another index alike, so
   * that a caller without a token learns nothing about which endpoints exist.
   */
  async authenticate(endpoint: string, authorization: string | undefined): Promise<DataPlaneCaller> {
    const token = parseBearer(authorization);
    if (token === undefined || endpoint.length === 0 || endpoint.length > MAX_ENDPOINT_LENGTH) throw invalidToken();
    const row = await this.indexes.findByEndpoint(endpoint);
    if (!row) throw invalidToken();
    // Compare against both tokens every time so timing does not tell which one nearly matched;
    // within a rotation's grace period, against the two it replaced as well.
    const inGrace = row.previous_tokens_expire_at != null && this.clock() < Number(row.previous_tokens_expire_at);
    const isFull = safeEqual(token, row.token) || (inGrace && safeEqual(token, row.previous_token ?? ''));
    const isReadOnly =
      safeEqual(token, row.read_only_token) || (inGrace && safeEqual(token, row.previous_read_only_token ?? ''));
    if (!isFull && !isReadOnly) throw invalidToken();
    const quotas = {} as Quotas;
    for (const field of QUOTA_FIELDS) quotas[field] = Number(row[field]);
    return {
      indexId: row.id,
      endpoint: row.endpoint,
      readOnly: !isFull,
      quotas,
      inputEnrichmentEnabled: Number(row.input_enrichment_enabled) === 1,
      recordHead: row.record_head,
    };
  }

  /** Throws `forbidden` when a read-only caller calls a writing route. */
  authorize(caller: DataPlaneCaller, route: DataPlaneRoute): void {
    if (caller.readOnly && !READ_ONLY_ROUTES.has(route)) {
      throw new AppError('forbidden', `Forbidden: /${route} is not allowed with a read-only token`);
    }
  }
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
export function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function invalidToken(): AppError {
  return new AppError('unauthorized', 'Unauthorized: Invalid auth token');
}
