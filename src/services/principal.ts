import { AppError, errors } from '../errors.js';
import { type Action, grantsAction, missingActionCode } from './key-actions.js';

/** The name audit entries and key listings give an account's own key. */
export const ACCOUNT_KEY_NAME = 'account';

/** Who a management request acts as: an account, through its own key or one of its API keys. */
export interface Principal {
  email: string;
  /** The API key's id; null for the account's own key, which may do everything. */
  keyId: string | null;
  keyName: string;
  grants: readonly string[];
  /** The indexes the key is limited to; null for every index of the account. */
  indexIds: readonly string[] | null;
  /** Unix seconds after which the key is refused; null for never. */
  expiresAt: number | null;
}

export function accountPrincipal(email: string): Principal {
  return { email, keyId: null, keyName: ACCOUNT_KEY_NAME, grants: ['*'], indexIds: null, expiresAt: null };
}

/**
 * What a route needs of its caller: an action, and whether it concerns one index (named by the
 * route's `id` parameter) or the whole account (refused to keys limited to some indexes, which
 * would otherwise see or change what lies outside them).
 */
export interface RouteAccess {
  action: Action;
  scope?: 'index' | 'account';
}

/**
 * Throws unless `principal` may call a route needing `access`: 403 with a code naming the
 * missing action; an index outside the key's indexes reads as missing (404), as another account's
 * does, so a limited key learns nothing of the rest.
 */
export function authorize(principal: Principal, access: RouteAccess | undefined, indexId: string | undefined): void {
  if (access === undefined) {
    // A route that declares no action is open to the account's own key only.
    if (principal.keyId !== null) throw new AppError('forbidden', 'This route needs the account key');
    return;
  }
  if (!grantsAction(principal.grants, access.action)) {
    throw new AppError(missingActionCode(access.action), `This API key lacks the "${access.action}" action`);
  }
  if (principal.indexIds === null) return;
  if (access.scope === 'account') {
    throw new AppError('key_limited_to_indexes', 'This API key is limited to some indexes; use an unlimited key');
  }
  if (access.scope === 'index' && (indexId === undefined || !principal.indexIds.includes(indexId))) {
    throw errors.indexNotFound();
  }
}

/** Whether the principal may see the index with this id (list filters). */
export function seesIndex(principal: Principal, indexId: string): boolean {
  return principal.indexIds === null || principal.indexIds.includes(indexId);
}
