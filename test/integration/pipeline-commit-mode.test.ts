import { Client as PgClient } from 'pg';
import type { Query } from '../../shared/db/named-sql';
import { advanceHorizon } from '../../workers/outbox/outbox.queries';
import { lockConsumerPosition, nextEvents } from '../../workers/pipeline/consumer.queries';
import { TEST_PG_BASE, dropDatabase, templateDbName, withAdmin, workerDbName } from '../support/test-db';

/*
 * The pipeline's own commits do not wait for their WAL flush (docs/architecture.md "Relay order"): a
 * relay step that moves the horizon and a consumer's batch set synchronous_commit off for their
 * transaction; the commands' commits keep waiting for theirs. Each statement runs here inside a
 * transaction of the test's, which shows the setting the commit would use, and is rolled back.
 */
describe("the pipeline's commits do not wait for the WAL flush", () => {
  const database = `${workerDbName(process.env.JEST_WORKER_ID ?? '1')}_commit_mode`;
  let pg: PgClient;

  beforeAll(async () => {
    await withAdmin(async (admin) => {
      await dropDatabase(admin, database);
      await admin.query(`create database "${database}" template "${templateDbName()}"`);
    });
    pg = new PgClient({ connectionString: `${TEST_PG_BASE}/${database}` });
    await pg.connect();
    await pg.query(`insert into outbox_consumer (name, position) values ('commit-mode-test', 0) on conflict (name) do nothing`);
  });

  afterAll(async () => {
    await pg?.end();
    await withAdmin((admin) => dropDatabase(admin, database));
  });

  /** The rows of one statement run in a transaction, and synchronous_commit as its commit would see it. */
  async function inTransaction<P extends object, R>(q: Query<P, R>, params: P, before?: string): Promise<{ rows: R[]; mode: string }> {
    await pg.query('begin');
    try {
      if (before) await pg.query(before);
      const { rows } = await pg.query<R & object>({ text: q.statement.text, values: q.statement.values(params) });
      const [{ synchronous_commit: mode }] = (await pg.query<{ synchronous_commit: string }>('show synchronous_commit')).rows;
      return { rows: rows as R[], mode: mode! };
    } finally {
      await pg.query('rollback');
    }
  }

  it('a relay step that moves the horizon commits without waiting; one with nothing new reads no lock table and changes nothing', async () => {
    expect((await pg.query('show synchronous_commit')).rows[0].synchronous_commit).toBe('on');
    // An id handed out above the horizon, by a transaction that has ended (this one's own lock is not counted).
    const moved = await inTransaction(advanceHorizon, { candidate: null, holders: null, gap: null, after: null, batchSize: 500, notify: 'on' }, `select nextval('outbox_event_id_seq')`);
    expect(moved.rows).toHaveLength(1);
    expect(BigInt(moved.rows[0]!.through!)).toBeGreaterThan(BigInt(moved.rows[0]!.before!));
    expect(moved.mode).toBe('off');

    // Move it for real, then a step with nothing handed out above it, while a writer is at work: the
    // step ends before the lock table (it would keep the writer as a candidate's holder otherwise).
    await pg.query({ text: advanceHorizon.statement.text, values: advanceHorizon.statement.values({ candidate: null, holders: null, gap: null, after: null, batchSize: 500, notify: 'on' }) });
    const writer = new PgClient({ connectionString: `${TEST_PG_BASE}/${database}` });
    await writer.connect();
    try {
      await writer.query('begin');
      await writer.query('lock table outbox_event in row exclusive mode');
      const still = await inTransaction(advanceHorizon, { candidate: null, holders: null, gap: null, after: null, batchSize: 500, notify: 'on' });
      expect(still.rows[0]).toMatchObject({ locked: true, next_candidate: null, next_holders: null });
      expect(still.rows[0]!.through).toBe(still.rows[0]!.before);
      expect(still.mode).toBe('on');
    } finally {
      await writer.end();
    }
  });

  it("a consumer's batch commits without waiting", async () => {
    const { rows, mode } = await inTransaction(lockConsumerPosition, { name: 'commit-mode-test' });
    expect(rows).toHaveLength(1);
    expect(mode).toBe('off');
    // A batch that reads its events locks its position with them, in the same statement.
    const read = await inTransaction(nextEvents, { name: 'commit-mode-test', known: null, batchSize: 10, types: null });
    expect(read.rows).toHaveLength(1);
    expect(read.mode).toBe('off');
    // Outside the batch's transaction the connection is as it was.
    expect((await pg.query('show synchronous_commit')).rows[0].synchronous_commit).toBe('on');
  });
});
