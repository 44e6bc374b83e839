import { type RawBuilder, type SqlBool, sql } from 'kysely';

/**
 * The rows after a position in a list ordered by two columns (both ascending, or both
 * descending): a row-value comparison, which SQLite and PostgreSQL both evaluate on the index.
 */
export function afterPosition(
  columns: readonly [string, string],
  position: readonly [number | string, number | string],
  direction: 'asc' | 'desc' = 'asc',
): RawBuilder<SqlBool> {
  const [first, second] = columns.map((column) => sql.ref(column));
  const operator = sql.raw(direction === 'asc' ? '>' : '<');
  return sql<SqlBool>`(${first}, ${second}) ${operator} (${position[0]}, ${position[1]})`;
}
