import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_create_accounts.js';
import * as m0002 from './0002_create_search_indexes.js';
import * as m0003 from './0003_create_messaging_instances.js';
import * as m0004 from './0004_create_usage_minutes.js';
import * as m0005 from './0005_create_index_data.js';
import * as m0006 from './0006_create_api_keys.js';
import * as m0007 from './0007_create_idempotency_keys.js';
import * as m0008 from './0008_add_previous_tokens.js';
import * as m0009 from './0009_create_audit_log.js';

/** Migrations are listed statically so the same list runs from src (tests) and dist (server). */
export const migrationProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_create_accounts': m0001,
      '0002_create_search_indexes': m0002,
      '0003_create_messaging_instances': m0003,
      '0004_create_usage_minutes': m0004,
      '0005_create_index_data': m0005,
      '0006_create_api_keys': m0006,
      '0007_create_idempotency_keys': m0007,
      '0008_add_previous_tokens': m0008,
      '0009_create_audit_log': m0009,
    };
  },
};
