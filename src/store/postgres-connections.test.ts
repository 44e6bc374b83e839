import net from 'node:net';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../test/helpers/store.js';
import { tcpProxy } from '../../test/helpers/tcp-proxy.js';
import { openStore, type Store } from './database.js';
import { isStoreUnavailable } from './store-unavailable.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Connections PostgreSQL ends under a running node (a restart, pg_terminate_backend, a timeout):
 * the node goes on with new ones. An 'error' event nobody listens to would end this test process,
 * which vitest reports as a failure.
 */
describe.skipIf(!onPostgres)('lost PostgreSQL connections (PostgreSQL)', () => {
  let testStore: TestStore;
  let admin: pg.Client;
  const opened: Store[] = [];
  beforeAll(async () => {
    testStore = await createTestStore();
    admin = new pg.Client({ connectionString: testStore.databaseUrl });
    await admin.connect();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    await admin.end();
    await testStore.cleanup();
  });

  function open(idleTransactionTimeoutMs?: number, more: { poolSize?: number; connectTimeoutMs?: number } = {}) {
    const warnings: { obj: object; msg?: string }[] = [];
    const store = openStore({
      dataDir: testStore.dataDir,
      databaseUrl: testStore.databaseUrl,
      idleTransactionTimeoutMs,
      ...more,
    });
    store.useLogger?.({ warn: (obj, msg) => warnings.push({ obj, msg }) });
    opened.push(store);
    return { store, warnings };
  }

  const backendPid = async (store: Store) =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0].pid;

  it('a busy pool makes a query wait for a free connection however long: the connect timeout is not a queue timeout', async () => {
    const { store } = open(undefined, { poolSize: 1, connectTimeoutMs: 300 });
    const slow = sql`select pg_sleep(1)`.execute(store.db);
    const queued = await sql<{ one: number }>`select 1 as one`.execute(store.db);
    expect(queued.rows).toEqual([{ one: 1 }]);
    await slow;
  });

  it('a host that does not answer fails a query after the connect timeout, as the store unreachable (503)', async () => {
    // A listening socket that never speaks: the connection opens, the startup answer never comes.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(testStore.databaseUrl!);
      url.host = `127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const store = openStore({ dataDir: testStore.dataDir, databaseUrl: url.toString(), connectTimeoutMs: 300 });
      opened.push(store);
      const started = Date.now();
      const error = await sql`select 1`.execute(store.db).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(isStoreUnavailable(error)).toBe(true);
    } finally {
      silent.close();
    }
  });

  it('an idle connection ended by the server is logged (without its password) and replaced', async () => {
    const { store, warnings } = open();
    const pid = await backendPid(store);
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0].msg).toBe('a PostgreSQL connection was lost; the pool replaces it');
    expect(warnings[0].obj).toEqual({ err: expect.objectContaining({ code: '57P01' }) });
    const password = new URL(testStore.databaseUrl!).password;
    if (password) expect(JSON.stringify(warnings[0].obj)).not.toContain(password);
    expect(await backendPid(store)).not.toBe(pid);
  });

  it('a connection ended inside a transaction fails that transaction only, and its cause is logged', async () => {
    const { store, warnings } = open();
    let pid = 0;
    const transaction = store.db.transaction().execute(async (trx) => {
      pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid;
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await new Promise((resolve) => setTimeout(resolve, 200)); // the client hears it, between statements
      await sql`select 1`.execute(trx);
    });
    await expect(transaction).rejects.toThrow();
    expect(await backendPid(store)).not.toBe(pid);
    // The transaction's own error says only that the client is unusable: the cause is in the log.
    expect(warnings.map((warning) => warning.obj)).toEqual([{ err: expect.objectContaining({ code: '57P01' }) }]);
  });

  it('a transaction left idle is ended by the server, releasing its locks to the other writers', async () => {
    const { store: frozen } = open(500);
    const { store: other } = open(500);
    await sql`create table if not exists lock_probe (id int primary key, n int)`.execute(other.db);
    await sql`insert into lock_probe values (1, 0) on conflict do nothing`.execute(other.db);
    // A node that took a row lock, then stopped (paused, frozen, cut off) before committing.
    const stuck = frozen.db.transaction().execute(async (trx) => {
      await sql`select n from lock_probe where id = 1 for update`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await sql`update lock_probe set n = n + 100 where id = 1`.execute(trx);
    });
    const stuckOutcome = stuck.then(
      () => 'committed',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.db.transaction().execute(async (trx) => {
      await sql`update lock_probe set n = n + 1 where id = 1`.execute(trx);
    });
    expect(await stuckOutcome).toBe('failed');
    const { rows } = await sql<{ n: number }>`select n from lock_probe where id = 1`.execute(other.db);
    expect(rows[0].n).toBe(1);
  });

  it('a statement whose answer never comes (a silent network) fails as the store unreachable, and the pool recovers', async () => {
    const proxy = await tcpProxy(testStore.databaseUrl!);
    try {
      // A statement timeout of 100 ms: the answer is given up a few seconds after it.
      const store = openStore({ dataDir: testStore.dataDir, databaseUrl: proxy.url, statementTimeoutMs: 100 });
      store.useLogger?.({ warn() {} });
      opened.push(store);
      await sql`select 1`.execute(store.db);
      proxy.setMode('silent');
      const error = await sql`select 1`.execute(store.db).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(isStoreUnavailable(error)).toBe(true);
      proxy.setMode('forward');
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(store.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await proxy.close();
    }
  });

  it('sessions get the configured lock, statement and idle-transaction timeouts', async () => {
    const store = openStore({
      dataDir: testStore.dataDir,
      databaseUrl: testStore.databaseUrl,
      lockTimeoutMs: 1234,
      statementTimeoutMs: 5678,
      idleTransactionTimeoutMs: 4321,
    });
    opened.push(store);
    const { rows } = await sql<Record<string, string>>`select current_setting('lock_timeout') as lock,
      current_setting('statement_timeout') as statement,
      current_setting('idle_in_transaction_session_timeout') as idle,
      current_setting('tcp_keepalives_idle') as keepalive,
      current_schema() as schema`.execute(store.db);
    expect(rows[0]).toEqual({
      lock: '1234ms',
      statement: '5678ms',
      idle: '4321ms',
      keepalive: '5',
      schema: new URL(testStore.databaseUrl!).searchParams.get('options')!.split('=')[1],
    });
  });

  it('with several hosts, a connection goes to the next host when one cannot be reached', async () => {
    const down = await tcpProxy(testStore.databaseUrl!, 'refuse');
    try {
      const url = new URL(testStore.databaseUrl!);
      const both = testStore.databaseUrl!.replace(url.host, `127.0.0.1:${down.port},${url.host}`);
      const store = openStore({ dataDir: testStore.dataDir, databaseUrl: both });
      store.useLogger?.({ warn() {} });
      opened.push(store);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(store.db);
      expect(rows).toEqual([{ one: 1 }]);
      expect(down.connections).toBe(1);
    } finally {
      await down.close();
    }
  });
});
