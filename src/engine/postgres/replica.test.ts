import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../../test/helpers/store.js';
import { openStore } from '../../store/database.js';
import { createEmbeddedEngine, type EmbeddedEngine } from '../embedded/embedded-engine.js';
import type { EmbeddedIndex } from '../embedded/embedded-index.js';
import { createBuiltinEmbedder } from '../providers/builtin-embedder.js';
import { tempDir } from '../test-fixtures.js';
import { Replica } from './replica.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A promise and the function that resolves it: one step of a test's choreography. */
function signal(): [Promise<void>, () => void] {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return [promise, resolve];
}

/**
 * A local copy (and the engine holding it) whose apply of changes runs `slowly` first, for tests of
 * what waits behind a long local apply.
 */
function slowLocalCopy(slowly: () => Promise<void>): EmbeddedEngine {
  let watermark = 0;
  const localIndex = {
    watermark: () => watermark,
    embedderIdentity: () => ({ name: 'builtin' }),
    listNamespaces: async () => [],
    apply: async (_changes: unknown, to?: number) => {
      await slowly();
      if (to !== undefined) watermark = to;
    },
  } as unknown as EmbeddedIndex;
  return {
    use: <R>(_id: string, work: (index: EmbeddedIndex) => Promise<R>) => work(localIndex),
  } as unknown as EmbeddedEngine;
}

describe.skipIf(!onPostgres)('replica writes (PostgreSQL)', () => {
  let store: TestStore;
  let probe: pg.Client;
  beforeAll(async () => {
    store = await createTestStore();
    probe = new pg.Client({ connectionString: store.databaseUrl });
    await probe.connect();
    await sql`INSERT INTO accounts (email, api_key_hash, created_at) VALUES ('a@example.com', 'x', 0)`.execute(
      store.store.db,
    );
    await sql`
      INSERT INTO search_indexes (id, customer_id, name, endpoint, type, region, token, read_only_token,
        max_vector_count, max_monthly_reranks, max_daily_updates, max_daily_queries, max_monthly_bandwidth,
        max_writes_per_second, max_query_per_second, max_reads_per_request, max_writes_per_request,
        creation_time, input_enrichment_enabled)
      VALUES ('idx', 'a@example.com', 'idx', 'idx-endpoint', 'payg', 'eu-west-1', 't', 'r',
        1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0)`.execute(store.store.db);
    await sql`INSERT INTO index_heads (index_id) VALUES ('idx')`.execute(store.store.db);
  });
  afterAll(async () => {
    await probe.end();
    await store.cleanup();
  });

  const hung = () => new Promise((resolve) => setTimeout(() => resolve('hung'), 5000).unref());

  /** Whether another connection can take the index's head lock at once. */
  async function headLockFree(): Promise<boolean> {
    await probe.query('BEGIN');
    try {
      await probe.query(`SELECT 1 FROM index_heads WHERE index_id = 'idx' FOR UPDATE NOWAIT`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return false; // lock_not_available
      throw error;
    } finally {
      await probe.query('ROLLBACK');
    }
  }

  it('opens the local copy before taking the head lock, so a wait for a slot holds no lock', async () => {
    const [admitted, admit] = signal();
    const [waitingForSlot, entered] = signal();
    const localIndex = { watermark: () => 0, apply: async () => {} } as unknown as EmbeddedIndex;
    // A node whose open indexes are all busy: the first use waits for a slot until admitted.
    const local = {
      async use<R>(_id: string, work: (index: EmbeddedIndex) => Promise<R>): Promise<R> {
        entered();
        await admitted;
        return work(localIndex);
      },
    } as unknown as EmbeddedEngine;
    const replica = new Replica('idx', store.store.db, local, { error() {} });

    const write = replica.write(async () => ({ result: 'written', changes: [], fromSeq: 0, toSeq: 0 }));
    await waitingForSlot;
    const freeWhileWaiting = await headLockFree();
    admit();
    expect(await write).toBe('written');
    expect(freeWhileWaiting).toBe(true);
  });

  it('finishes a write when the local engine closes during it, and the close too', async () => {
    const temp = tempDir();
    const local = createEmbeddedEngine({ dataDir: temp.dir, embedder: createBuiltinEmbedder(), vectorWorkers: 1 });
    try {
      const replica = new Replica('idx', store.store.db, local, { error() {} });
      let closing: Promise<void> | undefined;
      // A committed change to apply locally after the transaction, while the engine is closing.
      const write = replica.write(async (_trx, head) => {
        closing = local.close();
        return {
          result: 'written',
          changes: [{ kind: 'namespace', namespace: 'ns' }],
          fromSeq: head.seq,
          toSeq: head.seq + 1,
        };
      });
      const finished = write.then(async (result) => [result, await closing]);
      expect(await Promise.race([finished, hung()])).toEqual(['written', undefined]);
      // Closed: the index is not opened again, here by a read's catch-up.
      expect(await replica.sync(1000).catch((error) => error.code)).toBe('service_unavailable');
    } finally {
      await local.close();
      temp.remove();
    }
  });

  it('a catch-up waiting for a connection holds nothing that a write holding one waits for', async () => {
    const temp = tempDir();
    const local = createEmbeddedEngine({ dataDir: temp.dir, embedder: createBuiltinEmbedder(), vectorWorkers: 1 });
    // One connection: the write holds it while it waits for the head lock, so the catch-up waits.
    const oneConnection = openStore({ dataDir: temp.dir, databaseUrl: store.databaseUrl, poolSize: 1 });
    let outcome: unknown;
    try {
      const replica = new Replica('idx', oneConnection.db, local, { error() {} });
      await probe.query('BEGIN');
      await probe.query(`SELECT 1 FROM index_heads WHERE index_id = 'idx' FOR UPDATE`);
      const write = replica.write(async (_trx, head) => ({
        result: 'written',
        changes: [],
        fromSeq: head.seq,
        toSeq: head.seq,
      }));
      // pg_stat_activity is read once per transaction unless its snapshot is cleared.
      const blocked = `SELECT pg_stat_clear_snapshot(), count(*)::int AS n FROM pg_stat_activity
        WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))`;
      while ((await probe.query(blocked)).rows[0].n === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const sync = replica.sync(1000); // behind: it needs a connection to catch up
      await probe.query('ROLLBACK');
      outcome = await Promise.race([Promise.all([write, sync]), hung()]);
      expect(outcome).toEqual(['written', undefined]);
    } finally {
      await probe.query('ROLLBACK');
      // A hung write keeps its connection: closing the pool would wait for it too.
      if (outcome !== 'hung') await oneConnection.close();
      await local.close();
      temp.remove();
    }
  });

  it('reads behind on one index, with heads rising, take at most two connections between them', async () => {
    const temp = tempDir();
    const threeConnections = openStore({ dataDir: temp.dir, databaseUrl: store.databaseUrl, poolSize: 3 });
    const [slowApply, releaseApply] = signal();
    const [applyBegan, applying] = signal();
    const local = slowLocalCopy(async () => {
      applying();
      await slowApply; // a large batch applied locally, holding applyLock
    });
    const replica = new Replica('idx', threeConnections.db, local, { error() {} });
    try {
      const write = replica.write(async (_trx, head) => ({
        result: 'written',
        changes: [{ kind: 'namespace', namespace: 'ns' }],
        fromSeq: head.seq,
        toSeq: head.seq + 1,
      }));
      await applyBegan;
      // Reads whose requests saw heads 1 to 5 (other nodes keep writing) queue behind the apply.
      const reads = [1, 2, 3, 4, 5].map((head) => replica.sync(head));
      await new Promise((resolve) => setTimeout(resolve, 200)); // time to ask for connections
      // Other work of the node (another index, a token lookup) still gets a connection.
      const other = sql`SELECT 1`.execute(threeConnections.db).then(() => 'answered');
      const outcome = await Promise.race([other, new Promise((resolve) => setTimeout(() => resolve('starved'), 1500))]);
      releaseApply();
      await Promise.all([write, ...reads, other]);
      expect(outcome).toBe('answered');
    } finally {
      releaseApply();
      await threeConnections.close();
      temp.remove();
    }
  });

  it('a catch-up and a write waiting behind it outlast the idle-transaction timeout; they are not idle', async () => {
    const temp = tempDir();
    // PostgreSQL ends a session idle in a transaction this long (a node frozen mid-write).
    const node = openStore({ dataDir: temp.dir, databaseUrl: store.databaseUrl, idleTransactionTimeoutMs: 1500 });
    node.useLogger?.({ warn() {} });
    const [applyBegan, applying] = signal();
    let applies = 0;
    let applyEnded = 0;
    const local = slowLocalCopy(async () => {
      if (applies++ > 0) return;
      applying();
      // The catch-up's page of a long backlog, applied locally under applyLock: 2 timeouts and more.
      await new Promise((resolve) => setTimeout(resolve, 3500));
      applyEnded = Date.now();
    });
    const replica = new Replica('idx', node.db, local, { error() {} }, 200);
    try {
      const head = (await replica.head())?.seq ?? 0;
      const catchUp = replica.sync(head + 1).then(
        () => 'caught up',
        (error) => `failed: ${error.message}`,
      );
      await applyBegan;
      // Holds the head lock while it waits for applyLock, as a write does behind a catch-up.
      const write = replica
        .write(async (_trx, locked) => ({
          result: `written ${Date.now() >= applyEnded && applyEnded > 0 ? 'after' : 'before'} the apply`,
          changes: [],
          fromSeq: locked.seq,
          toSeq: locked.seq,
        }))
        .catch((error) => `failed: ${error.message}`);
      expect(await Promise.all([catchUp, write])).toEqual(['caught up', 'written after the apply']);
    } finally {
      await node.close();
      temp.remove();
    }
  });
});
