import { AppError, errors } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import type { ReadCache } from '../store/read-cache.js';
import * as accounts from '../store/repositories/account.repository.js';
import { type ApiKeyRow, findApiKey } from '../store/repositories/api-key.repository.js';
import { insertMessagingInstances } from '../store/repositories/messaging.repository.js';
import type { Clock } from './clock.js';
import { buildMessagingInstances } from './messaging.service.js';
import { accountPrincipal, type Principal } from './principal.js';
import { hashApiKey, randomSecret, verifyApiKey } from './secrets.js';
import { VerifiedCredentials } from './verified-credentials.js';

export interface AccountCredentials {
  email: string;
  api_key: string;
}

export interface AccountServiceOptions {
  clock: Clock;
  messagingDefaultPlan: 'free' | 'paid';
  /** Caches account and API key lookups for authentication. */
  cache: ReadCache;
  /**
   * Keys that passed scrypt lately, shared with the API key service (which forgets deleted keys);
   * a memory of its own when absent.
   */
  verified?: VerifiedCredentials;
}

const EMAIL = /^[^\s@:]{1,64}@[^\s@:]{1,255}$/;

/** Accounts and their API keys. Keys are only ever stored as scrypt hashes. */
export class AccountService {
  /**
   * scrypt is deliberately slow, so a successful check is remembered for a minute, together with
   * the stored hash it passed against: a key rotated on any node changes that hash, so the entry
   * stops counting as soon as this node reads the account row again (see {@link authenticate}).
   */
  private readonly verified: VerifiedCredentials;

  constructor(
    private readonly store: Store,
    private readonly options: AccountServiceOptions,
  ) {
    this.verified = options.verified ?? new VerifiedCredentials(options.clock);
  }

  /** Creates an account with a fresh API key, and its messaging instances. */
  async create(email: string, apiKey = randomSecret()): Promise<AccountCredentials> {
    assertEmail(email);
    const now = Math.floor(this.options.clock() / 1000);
    const hash = await hashApiKey(apiKey);
    try {
      await this.store.db.transaction().execute(async (trx) => {
        await accounts.insertAccount(trx, { email, api_key_hash: hash, created_at: now });
        await insertMessagingInstances(trx, buildMessagingInstances(email, now, this.options.messagingDefaultPlan));
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('account_exists', `An account ${email} already exists`);
      throw error;
    }
    return { email, api_key: apiKey };
  }

  /** Makes sure the account exists with exactly this key (idempotent bootstrap). */
  async ensure(email: string, apiKey: string): Promise<'created' | 'updated' | 'unchanged'> {
    const existing = await accounts.findAccount(this.store.db, email);
    if (!existing) {
      try {
        await this.create(email, apiKey);
        return 'created';
      } catch (error) {
        // Another node bootstrapped the same account at the same moment.
        if (!(error instanceof AppError && error.code === 'account_exists')) throw error;
        return this.ensure(email, apiKey);
      }
    }
    if (await verifyApiKey(apiKey, existing.api_key_hash)) return 'unchanged';
    await accounts.updateAccountKeyHash(this.store.db, email, await hashApiKey(apiKey));
    this.verified.forget(email);
    return 'updated';
  }

  async list(): Promise<{ email: string; created_at: number }[]> {
    return accounts.listAccounts(this.store.db);
  }

  async count(): Promise<number> {
    return accounts.countAccounts(this.store.db);
  }

  /** Replaces the account's key; the old key stops working at once. */
  async rotateKey(email: string): Promise<AccountCredentials> {
    const apiKey = randomSecret();
    const updated = await accounts.updateAccountKeyHash(this.store.db, email, await hashApiKey(apiKey));
    this.verified.forget(email);
    if (!updated) throw new AppError('account_not_found', `No account ${email}`);
    return { email, api_key: apiKey };
  }

  /** Deletes the account and (by cascade) its indexes and messaging instances. */
  async delete(email: string): Promise<void> {
    const deleted = await accounts.deleteAccount(this.store.db, email);
    this.verified.forget(email);
    if (!deleted) throw new AppError('account_not_found', `No account ${email}`);
  }

  /**
   * Returns who the credentials act as: the account through its own key, or one of its API keys
   * (see {@link apiKeyIdOf}); throws unauthorized otherwise. The account or key row is read on
   * every call (from the read cache, which any write empties; on PostgreSQL from the database),
   * so a rotated or deleted key, an expired key or a deleted account fails at the next request on
   * every node; only the scrypt verdict for an unchanged row is remembered.
   */
  async authenticate(email: string, apiKey: string): Promise<Principal> {
    const keyId = apiKeyIdOf(apiKey);
    const key =
      keyId === undefined
        ? undefined
        : await this.options.cache.get(`api-key:${keyId}`, () => findApiKey(this.store.db, keyId));
    // A key of the API key form that no key row has for this account may still be an account key
    // chosen by an operator (SEARCHPLANE_ADMIN_API_KEY): checked as one below.
    if (key !== undefined && key.account_email === email) return this.authenticateApiKey(key, apiKey);
    const account = await this.options.cache.get(`account:${email}`, () => accounts.findAccount(this.store.db, email));
    if (!account) {
      this.verified.forget(email);
      // Spend the same work as a real check so timing does not reveal which emails exist.
      await verifyApiKey(apiKey, DUMMY_HASH);
      throw invalidCredentials();
    }
    await this.verify(account.email, apiKey, account.api_key_hash);
    return accountPrincipal(account.email);
  }

  private async authenticateApiKey(key: ApiKeyRow, apiKey: string): Promise<Principal> {
    await this.verify(key.account_email, apiKey, key.key_hash);
    // After the hash: an expired key's holder learns it expired only with its right secret.
    const expiresAt = key.expires_at === null ? null : Number(key.expires_at);
    if (expiresAt !== null && this.options.clock() >= expiresAt * 1000) {
      throw errors.unauthorized('This API key has expired');
    }
    return {
      email: key.account_email,
      keyId: key.id,
      keyName: key.name,
      grants: JSON.parse(key.actions) as string[],
      indexIds: key.index_ids === null ? null : (JSON.parse(key.index_ids) as string[]),
      expiresAt,
    };
  }

  private async verify(email: string, apiKey: string, storedHash: string): Promise<void> {
    if (this.verified.has(email, apiKey, storedHash)) return;
    if (!(await verifyApiKey(apiKey, storedHash))) throw invalidCredentials();
    this.verified.remember(email, apiKey, storedHash);
  }
}

/** API keys are `sp_<key id>_<secret>`: the id finds the one hash to check. */
const API_KEY_FORM = /^sp_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;

/** The id of an API key of the form {@link newApiKeySecret} makes, else undefined. */
export function apiKeyIdOf(apiKey: string): string | undefined {
  return API_KEY_FORM.exec(apiKey)?.[1];
}

/** A new API key's secret for the key with this id. */
export function newApiKeySecret(keyId: string): string {
  return `sp_${keyId}_${randomSecret()}`;
}

function invalidCredentials() {
  return errors.unauthorized('Invalid email or API key');
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function assertEmail(email: string): void {
  if (!EMAIL.test(email)) {
    throw errors.invalidRequest('email must look like name@domain', [{ field: 'email', message: 'invalid email' }]);
  }
}
