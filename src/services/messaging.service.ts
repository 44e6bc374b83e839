import { randomUUID } from 'node:crypto';
import { AppError, errors } from '../errors.js';
import type { Store } from '../store/database.js';
import {
  findOwnedMessagingInstance,
  listMessagingInstances,
  type MessagingInstanceRow,
  updateOwnedMessagingInstance,
} from '../store/repositories/messaging.repository.js';
import { randomSecret } from './secrets.js';

export const MESSAGING_REGIONS = ['eu-central-1', 'us-east-1'] as const;
export const MESSAGING_PLANS = ['free', 'paid'] as const;
export type MessagingPlan = (typeof MESSAGING_PLANS)[number];

export interface MessagingInstanceRecord {
  customer_id: string;
  id: string;
  region: string;
  type: MessagingPlan;
  token: string;
  read_only_token: string;
  active: boolean;
  state: string;
  prod_pack_enabled: boolean;
  creation_time: number;
}

/** One instance per messaging region, created together with the account. */
export function buildMessagingInstances(email: string, now: number, plan: MessagingPlan): MessagingInstanceRow[] {
  return MESSAGING_REGIONS.map((region) => ({
    id: randomUUID(),
    customer_id: email,
    region,
    type: plan,
    token: randomSecret(),
    read_only_token: randomSecret(),
    active: 1,
    state: 'active',
    prod_pack_enabled: 0,
    creation_time: now,
  }));
}

function toRecord(row: MessagingInstanceRow): MessagingInstanceRecord {
  return {
    customer_id: row.customer_id,
    id: row.id,
    region: row.region,
    type: row.type as MessagingPlan,
    token: row.token,
    read_only_token: row.read_only_token,
    active: row.active === 1,
    state: row.state,
    prod_pack_enabled: row.prod_pack_enabled === 1,
    creation_time: Number(row.creation_time),
  };
}

/** Messaging instances and their production pack. Other accounts' instances read as missing. */
export class MessagingService {
  constructor(private readonly store: Store) {}

  async list(customerId: string): Promise<MessagingInstanceRecord[]> {
    return (await listMessagingInstances(this.store.db, customerId)).map(toRecord);
  }

  async get(customerId: string, id: string): Promise<MessagingInstanceRecord> {
    const row = await findOwnedMessagingInstance(this.store.db, customerId, id);
    if (!row) throw errors.messagingNotFound();
    return toRecord(row);
  }

  /** Idempotent; only paid instances can have the production pack. */
  async setProdPack(customerId: string, id: string, enabled: boolean): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      const row = await findOwnedMessagingInstance(trx, customerId, id);
      if (!row) throw errors.messagingNotFound();
      if (enabled && row.type !== 'paid') {
        throw new AppError(
          'prodpack_requires_paid_plan',
          'The production pack requires a paid plan: set the plan to "paid" first',
        );
      }
      await updateOwnedMessagingInstance(trx, customerId, id, { prod_pack_enabled: enabled ? 1 : 0 });
    });
  }

  /** Changes the plan; moving to free also turns the production pack off, since free cannot have it. */
  async setPlan(customerId: string, id: string, plan: MessagingPlan): Promise<void> {
    const changes = plan === 'free' ? { type: plan, prod_pack_enabled: 0 } : { type: plan };
    if (!(await updateOwnedMessagingInstance(this.store.db, customerId, id, changes))) {
      throw errors.messagingNotFound();
    }
  }
}
