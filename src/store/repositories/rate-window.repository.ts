import { type Kysely, sql } from 'kysely';
import type { DB } from '../schema.js';

/**
 * Claims `amount` requests of a key's one-second window, all or nothing: true when the window's
 * total stays within `limit` (PostgreSQL only; the row lock orders concurrent claims).
 */
export async function claimRateWindow(
  db: Kysely<DB>,
  key: string,
  windowStart: number,
  amount: number,
  limit: number,
): Promise<boolean> {
  const row = await db
    .insertInto('rate_windows')
    .values({ key, window_start: windowStart, used: amount })
    .onConflict((oc) =>
      oc
        .columns(['key', 'window_start'])
        .doUpdateSet({ used: sql`rate_windows.used + excluded.used` })
        .where(sql<boolean>`rate_windows.used + excluded.used <= ${limit}`),
    )
    .returning('used')
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets windows that started before `before` (ms). */
export async function pruneRateWindows(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('rate_windows').where('window_start', '<', before).execute();
}
