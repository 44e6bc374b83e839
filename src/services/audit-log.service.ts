import { randomUUID } from 'node:crypto';
import type { Store } from '../store/database.js';
import * as repo from '../store/repositories/audit-log.repository.js';
import type { Clock } from './clock.js';
import { DEFAULT_PAGE_LIMIT, type Page, type PageRequest, readPage } from './paging.js';
import type { Principal } from './principal.js';

/** The changes the audit log records, by the management route that makes them. */
export const AUDIT_ACTIONS = [
  'index.create',
  'index.rename',
  'index.delete',
  'index.reset_password',
  'index.transfer',
  'messaging.enable_prodpack',
  'messaging.disable_prodpack',
  'messaging.set_plan',
  'key.create',
  'key.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How often, at most, entries past the retention are deleted (on the next record). */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Where a change came from: the principal and the request. */
export interface AuditSource {
  principal: Principal;
  requestId: string;
  clientAddress: string;
}

export interface AuditEntry {
  id: string;
  /** Unix milliseconds. */
  time: number;
  account: string;
  key_id: string | null;
  key_name: string;
  request_id: string;
  client_address: string;
  action: AuditAction;
  target: string | null;
  details: unknown;
}

export interface AuditQuery extends PageRequest {
  /** Unix ms, inclusive. */
  from?: number;
  /** Unix ms, exclusive. */
  to?: number;
}

/** Entries this process has recorded. */
let recorded = 0;

/**
 * Newest first is (time, id) descending, and several changes often share a millisecond: an id
 * that begins with this process's count of entries keeps them in the order they were made (the
 * random rest keeps ids of several nodes apart).
 */
function entryId(): string {
  recorded++;
  return `${recorded.toString(36).padStart(10, '0')}-${randomUUID()}`;
}

/**
 * The audit log: one entry per management change, kept for the configured retention. Callers pass
 * only what a change was made with; nothing here ever holds a secret (see the management hook).
 */
export class AuditLogService {
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly options: { clock: Clock; retentionMs: number },
  ) {}

  async record(source: AuditSource, action: AuditAction, target: string | null, details: unknown): Promise<void> {
    const now = this.options.clock();
    const { principal } = source;
    await repo.insertAuditEntry(this.store.db, {
      id: entryId(),
      account_email: principal.email,
      time: now,
      key_id: principal.keyId,
      key_name: principal.keyName,
      request_id: source.requestId,
      client_address: source.clientAddress,
      action,
      target,
      details: details === undefined ? null : JSON.stringify(details),
    });
    if (now - this.prunedAt >= PRUNE_INTERVAL_MS) {
      this.prunedAt = now;
      await repo.pruneAuditEntries(this.store.db, now - this.options.retentionMs);
    }
  }

  /** One page of the account's entries, newest first, within the retention and the query's range. */
  async list(email: string, query: AuditQuery): Promise<Page<AuditEntry>> {
    const from = Math.max(query.from ?? 0, this.options.clock() - this.options.retentionMs);
    const page = await readPage(
      query,
      DEFAULT_PAGE_LIMIT,
      (after, limit) => repo.listAuditEntries(this.store.db, email, { from, to: query.to, after, limit }),
      (row) => [Number(row.time), row.id] as const,
    );
    return { data: page.data.map(entryOf), next_cursor: page.next_cursor };
  }
}

function entryOf(row: repo.AuditLogRow): AuditEntry {
  return {
    id: row.id,
    time: Number(row.time),
    account: row.account_email,
    key_id: row.key_id,
    key_name: row.key_name,
    request_id: row.request_id,
    client_address: row.client_address,
    action: row.action as AuditAction,
    target: row.target,
    details: row.details === null ? null : JSON.parse(row.details),
  };
}
