import { type Kysely, sql } from 'kysely';
import type { DB, UsageMinutesTable } from '../schema.js';

export type UsageCounters = Pick<UsageMinutesTable, 'queries' | 'updates' | 'bandwidth' | 'reranks'>;
export type UsageDelta = UsageMinutesTable;

/** Adds deltas to the per-minute rows (insert or increment), in one transaction. */
export async function addUsage(db: Kysely<DB>, deltas: UsageDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const delta of deltas) {
      await trx
        .insertInto('usage_minutes')
        .values(delta)
        .onConflict((oc) =>
          oc.columns(['index_id', 'minute']).doUpdateSet({
            queries: sql`usage_minutes.queries + excluded.queries`,
            updates: sql`usage_minutes.updates + excluded.updates`,
            bandwidth: sql`usage_minutes.bandwidth + excluded.bandwidth`,
            reranks: sql`usage_minutes.reranks + excluded.reranks`,
          }),
        )
        .execute();
    }
  });
}

export interface UsageBucket extends UsageCounters {
  /** Bucket start, unix seconds. */
  bucket: number;
}

/** Usage rows of the given indexes in [from, to), ready for sums. */
function usageIn(db: Kysely<DB>, indexIds: string[], from: number, to: number) {
  return db
    .selectFrom('usage_minutes')
    .select([
      (eb) => eb.fn.sum<number>('queries').as('queries'),
      (eb) => eb.fn.sum<number>('updates').as('updates'),
      (eb) => eb.fn.sum<number>('bandwidth').as('bandwidth'),
      (eb) => eb.fn.sum<number>('reranks').as('reranks'),
    ])
    .where('index_id', 'in', indexIds)
    .where('minute', '>=', from)
    .where('minute', '<', to);
}

/** Sums come back as strings or null depending on the dialect and on whether rows matched. */
function countersOf(row: Partial<Record<keyof UsageCounters, unknown>> | undefined): UsageCounters {
  return {
    queries: Number(row?.queries ?? 0),
    updates: Number(row?.updates ?? 0),
    bandwidth: Number(row?.bandwidth ?? 0),
    reranks: Number(row?.reranks ?? 0),
  };
}

/**
 * Sums usage of the given indexes in [from, to) grouped into buckets of `bucketSeconds`
 * aligned to the unix epoch. Only non-empty buckets are returned.
 */
export async function sumUsageByBucket(
  db: Kysely<DB>,
  indexIds: string[],
  from: number,
  to: number,
  bucketSeconds: number,
): Promise<UsageBucket[]> {
  if (indexIds.length === 0) return [];
  const bucket = sql<number>`(minute - (minute % ${sql.lit(bucketSeconds)}))`;
  const rows = await usageIn(db, indexIds, from, to).select(bucket.as('bucket')).groupBy(bucket).execute();
  return rows.map((row) => ({ bucket: Number(row.bucket), ...countersOf(row) }));
}

/** Totals of the given indexes in [from, to). */
export async function sumUsage(db: Kysely<DB>, indexIds: string[], from: number, to: number): Promise<UsageCounters> {
  if (indexIds.length === 0) return countersOf(undefined);
  return countersOf(await usageIn(db, indexIds, from, to).executeTakeFirst());
}

export async function deleteUsageOf(db: Kysely<DB>, indexId: string): Promise<void> {
  await db.deleteFrom('usage_minutes').where('index_id', '=', indexId).execute();
}

export async function pruneUsageBefore(db: Kysely<DB>, minute: number): Promise<void> {
  await db.deleteFrom('usage_minutes').where('minute', '<', minute).execute();
}
