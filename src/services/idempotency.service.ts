import { createHash } from 'node:crypto';
import { AppError, errors } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import * as repo from '../store/repositories/idempotency.repository.js';
import type { Clock } from './clock.js';

/** How long a key's first answer is kept and replayed. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A claim whose request has not answered in this long is taken to belong to a node that died
 * mid-request (the request timeout is at most an hour): the next request with the key runs anew.
 */
const ABANDONED_CLAIM_MS = 60 * 60 * 1000;

/** The running request's hold on a key, to complete with its answer. */
export interface IdempotencyClaim {
  email: string;
  key: string;
  createdAt: number;
}

export type IdempotencyStart = { claim: IdempotencyClaim } | { replay: { status: number; body: string } };

/**
 * `Idempotency-Key` on creates: the first request with a key runs and its successful answer is
 * kept; the same key with the same request within {@link IDEMPOTENCY_WINDOW_MS} gets that answer
 * again, with another request 409 `idempotency_key_reused`, and while the first still runs 409
 * `idempotency_request_in_progress`. A failed first request keeps nothing, so it can be retried.
 */
export class IdempotencyService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * SHA-256 over what makes two requests the same: method, route, path parameters and body, the
   * body's object keys sorted (the same JSON in another key order is the same request).
   */
  static fingerprint(method: string, route: string, params: unknown, body: unknown): string {
    return createHash('sha256')
      .update(JSON.stringify([method, route, params ?? null, body ?? null], sortedKeys))
      .digest('base64url');
  }

  async begin(email: string, key: string, fingerprint: string): Promise<IdempotencyStart> {
    const db = this.store.db;
    const now = this.clock();
    await repo.pruneIdempotencyKeys(db, email, now - IDEMPOTENCY_WINDOW_MS);
    // Twice at most: a claim found abandoned is removed and taken once.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await repo.insertIdempotencyKey(db, {
          account_email: email,
          key,
          fingerprint,
          status: null,
          body: null,
          created_at: now,
        });
        return { claim: { email, key, createdAt: now } };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const row = await repo.findIdempotencyKey(db, email, key);
      if (row === undefined) continue;
      if (row.fingerprint !== fingerprint) {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with another request in the last 24 hours; use a new key',
        );
      }
      if (row.status !== null && row.body !== null) return { replay: { status: Number(row.status), body: row.body } };
      if (now - Number(row.created_at) < ABANDONED_CLAIM_MS) {
        throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still running', {
          headers: { 'retry-after': '1' },
        });
      }
      await repo.deleteIdempotencyKey(db, email, key, Number(row.created_at));
    }
    throw errors.retrySoon('This Idempotency-Key is being claimed by another request; try again');
  }

  /** Keeps a successful answer for replays; after a failure, lets the key be used again. */
  async complete(claim: IdempotencyClaim, status: number, body: string): Promise<void> {
    if (status >= 200 && status < 300) {
      await repo.completeIdempotencyKey(this.store.db, claim.email, claim.key, { status, body });
    } else {
      await repo.deleteIdempotencyKey(this.store.db, claim.email, claim.key, claim.createdAt);
    }
  }
}

/** A JSON.stringify replacer that writes every object's keys in sorted order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
