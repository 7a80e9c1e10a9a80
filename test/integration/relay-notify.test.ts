import { randomUUID } from 'node:crypto';
import { Client as PgClient, type Notification } from 'pg';
import { advanceHorizon, otherListeners } from '../../workers/outbox/outbox.queries';
import { RELAYED_CHANNEL } from '../../workers/pipeline/notifications';
import { TEST_PG_BASE, dropDatabase, templateDbName, withAdmin, workerDbName } from '../support/test-db';
import { waitFor } from '../support/wait-for';

/*
 * The relay's step notifies `outbox_relayed` only while a process other than its own may listen
 * (workers/outbox/outbox.worker.ts): the step's statement says so for its own transaction, and the
 * relay learns it from the listening connections of other processes on the database.
 */
describe("the relay's notification to other processes", () => {
  const database = `${workerDbName(process.env.JEST_WORKER_ID ?? '1')}_relay_notify`;
  const url = `${TEST_PG_BASE}/${database}`;
  const clients: PgClient[] = [];
  const connect = async (applicationName?: string) => {
    const c = new PgClient({ connectionString: url, ...(applicationName ? { application_name: applicationName } : {}) });
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    await withAdmin(async (admin) => {
      await dropDatabase(admin, database);
      await admin.query(`create database "${database}" template "${templateDbName()}"`);
    });
  });

  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await withAdmin((admin) => dropDatabase(admin, database));
  });

  it('is sent by a step that moves the horizon unless the step says no one else listens', async () => {
    const pg = await connect();
    const listener = await connect();
    const heard: Notification[] = [];
    listener.on('notification', (n) => heard.push(n));
    await listener.query(`listen ${RELAYED_CHANNEL}`);
    const step = async (notify: 'on' | 'off') => {
      // An id handed out above the horizon by a transaction that has ended: the step moves the horizon to it.
      await pg.query(`select nextval('outbox_event_id_seq')`);
      const { rows } = await pg.query<{ locked: boolean; before: string; through: string }>({
        text: advanceHorizon.statement.text,
        values: advanceHorizon.statement.values({ candidate: null, holders: null, gap: null, after: null, batchSize: 500, notify }),
      });
      expect(rows[0]).toMatchObject({ locked: true });
      expect(BigInt(rows[0]!.through)).toBeGreaterThan(BigInt(rows[0]!.before));
    };

    await step('off');
    await step('on');
    await step('on');
    // Notifications arrive in commit order: once one sent after the steps is here, every step's is.
    await listener.query('listen relay_notify_test_done');
    await pg.query('notify relay_notify_test_done');
    await waitFor(() => heard.some((n) => n.channel === 'relay_notify_test_done'), { timeoutMs: 10_000, what: 'the notification sent after the steps' });
    expect(heard.map((n) => n.channel)).toEqual([RELAYED_CHANNEL, RELAYED_CHANNEL, 'relay_notify_test_done']);
    // The setting was the step's transaction's only.
    expect((await pg.query(`select current_setting('sorting.relay_notify', true) as v`)).rows[0].v).toBeFalsy();
  });

  it('knows whether a listening connection of another process is on the database', async () => {
    const pg = await connect();
    // A name of this test's own: the suites running beside it have listeners of their own.
    const name = `test-listen-${randomUUID().slice(0, 8)}`;
    const own = await connect(name);
    const ownPid = (await own.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const look = async (mine: number | null) => (await pg.query<{ others: boolean }>({ text: otherListeners.statement.text, values: otherListeners.statement.values({ listener: name, own: mine }) })).rows[0]!.others;

    expect(await look(ownPid)).toBe(false);
    // Not knowing its own (its listener reconnecting): every listener counts.
    expect(await look(null)).toBe(true);
    const other = await connect(name);
    expect(await look(ownPid)).toBe(true);
    await other.end();
    clients.splice(clients.indexOf(other), 1);
    await waitFor(async () => !(await look(ownPid)), { timeoutMs: 10_000, what: "the other listener's backend to be gone" });
  });
});
