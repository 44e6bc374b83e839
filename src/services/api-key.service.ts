import { randomUUID } from 'node:crypto';
import { AppError, errors } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import * as repo from '../store/repositories/api-key.repository.js';
import { newApiKeySecret } from './account.service.js';
import type { Clock } from './clock.js';
import { expandGrants } from './key-actions.js';
import { DEFAULT_PAGE_LIMIT, type Page, type PageRequest, readPage } from './paging.js';
import type { Principal } from './principal.js';
import type { SearchIndexService } from './search-index.service.js';
import { hashApiKey } from './secrets.js';
import type { VerifiedCredentials } from './verified-credentials.js';

export const API_KEY_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

/** An API key as listed: never its secret. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  actions: string[];
  /** The indexes the key is limited to; null for every index of the account. */
  indexes: string[] | null;
  /** Unix seconds after which the key is refused; null for never. */
  expires_at: number | null;
  created_at: number;
}

/** A key just created: the only answer that carries its secret. */
export interface CreatedApiKey extends ApiKeyRecord {
  key: string;
}

export interface CreateApiKeyInput {
  name: string;
  actions: string[];
  indexes?: string[] | null;
  expires_at?: number | null;
}

/**
 * Management API keys of an account: created with some of the creator's own powers at most, listed
 * without secrets, deleted with effect at the next request.
 */
export class ApiKeyService {
  constructor(
    private readonly store: Store,
    private readonly options: {
      clock: Clock;
      indexes: Pick<SearchIndexService, 'requireOwned'>;
      verified: VerifiedCredentials;
    },
  ) {}

  /**
   * Creates a key. A key may not grant more than its creator holds: no action, index or lifetime
   * beyond the creator's own (403 `key_grant_exceeds_own`), so `keys.write` is no way up.
   */
  async create(creator: Principal, input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const now = Math.floor(this.options.clock() / 1000);
    const actions = [...new Set(input.actions)];
    const indexes = input.indexes == null ? null : [...new Set(input.indexes)];
    const expiresAt = input.expires_at ?? null;
    if (expiresAt !== null && expiresAt <= now) {
      throw errors.invalidRequest('expires_at must be in the future', [
        { field: 'expires_at', message: 'must be a later Unix time than now' },
      ]);
    }
    assertWithin(creator, actions, indexes, expiresAt);
    // Only indexes of this account: another account's id reads as missing, as everywhere.
    for (const id of indexes ?? []) await this.options.indexes.requireOwned(creator.email, id);
    const id = randomUUID();
    const secret = newApiKeySecret(id);
    const row: repo.ApiKeyRow = {
      id,
      account_email: creator.email,
      name: input.name,
      key_hash: await hashApiKey(secret),
      actions: JSON.stringify(actions),
      index_ids: indexes === null ? null : JSON.stringify(indexes),
      expires_at: expiresAt,
      created_at: now,
    };
    try {
      await repo.insertApiKey(this.store.db, row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('api_key_name_taken', `You already have an API key named "${input.name}"`);
      }
      throw error;
    }
    return { ...recordOf(row), key: secret };
  }

  /** Every key of the account, or one page of them when `page` asks for paging. */
  async list(email: string): Promise<ApiKeyRecord[]>;
  async list(email: string, page: PageRequest): Promise<Page<ApiKeyRecord>>;
  async list(email: string, page?: PageRequest): Promise<ApiKeyRecord[] | Page<ApiKeyRecord>> {
    if (page === undefined) return (await repo.listApiKeys(this.store.db, email)).map(recordOf);
    const rows = await readPage(
      page,
      DEFAULT_PAGE_LIMIT,
      (after, limit) => repo.listApiKeys(this.store.db, email, { after, limit }),
      (row) => [Number(row.created_at), row.name] as const,
    );
    return { data: rows.data.map(recordOf), next_cursor: rows.next_cursor };
  }

  /** Deletes a key; it is refused from the next request on, on this node without waiting. */
  async delete(email: string, id: string): Promise<void> {
    const deleted = await repo.deleteApiKey(this.store.db, email, id);
    this.options.verified.forget(email);
    if (!deleted) throw new AppError('api_key_not_found', 'API key not found');
  }
}

function assertWithin(creator: Principal, actions: string[], indexes: string[] | null, expiresAt: number | null): void {
  const held = new Set(expandGrants(creator.grants));
  const beyond =
    expandGrants(actions).some((action) => !held.has(action)) ||
    (creator.indexIds !== null && (indexes === null || indexes.some((id) => !creator.indexIds?.includes(id)))) ||
    (creator.expiresAt !== null && (expiresAt === null || expiresAt > creator.expiresAt));
  if (beyond) {
    throw new AppError(
      'key_grant_exceeds_own',
      'A key can only be given actions, indexes and a lifetime that the key creating it has',
    );
  }
}

function recordOf(row: repo.ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    actions: JSON.parse(row.actions) as string[],
    indexes: row.index_ids === null ? null : (JSON.parse(row.index_ids) as string[]),
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    created_at: Number(row.created_at),
  };
}
