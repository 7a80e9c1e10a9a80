import { Client as PgClient } from 'pg';
import { advanceHorizon } from '../../workers/outbox/outbox.queries';
import { TEST_PG_BASE, dropDatabase, templateDbName, withAdmin, workerDbName } from '../support/test-db';

/*
 * The relay's step (docs/architecture.md "Relay order") moves the horizon over the committed ids right
 * above it without reading the lock table, even while a writer is at work; it reads the lock table only
 * for an id still missing at its next step: a writer's id (the horizon waits for it) or a rolled-back
 * one (passed once no writer holds the outbox's write lock). A step that reads the lock table while a
 * writer holds it returns a candidate with that writer, so a candidate of null here says it was not read.
 */
describe('the relay horizon over the committed ids in a row', () => {
  const database = `${workerDbName(process.env.JEST_WORKER_ID ?? '1')}_relay_run`;
  let pg: PgClient;
  let writer: PgClient;
  let committer: PgClient;
  type Memory = { candidate: string | null; holders: string[] | null; gap: string | null };

  beforeAll(async () => {
    await withAdmin(async (admin) => {
      await dropDatabase(admin, database);
      await admin.query(`create database "${database}" template "${templateDbName()}"`);
    });
    [pg, writer, committer] = [0, 1, 2].map(() => new PgClient({ connectionString: `${TEST_PG_BASE}/${database}` })) as [PgClient, PgClient, PgClient];
    await Promise.all([pg.connect(), writer.connect(), committer.connect()]);
  });

  afterAll(async () => {
    await Promise.all([pg?.end(), writer?.end(), committer?.end()]);
    await withAdmin((admin) => dropDatabase(admin, database));
  });

  const insert = async (c: PgClient): Promise<bigint> =>
    BigInt(
      (await c.query<{ id: string }>(`insert into outbox_event (event_id, client_id, type, data) values (gen_random_uuid(), 1, 'test.event', '{}') returning id::text`)).rows[0]!.id,
    );

  /** One step, committed, with what the relay keeps between steps; returns the horizon and the new memory. */
  async function step(memory: Memory): Promise<{ before: bigint; through: bigint; memory: Memory }> {
    const { rows } = await pg.query<{ before: string; through: string; next_candidate: string | null; next_holders: string[] | null; next_gap: string | null }>({
      text: advanceHorizon.statement.text,
      values: advanceHorizon.statement.values({ ...memory, after: null, batchSize: 500, notify: 'on' }),
    });
    const r = rows[0]!;
    return { before: BigInt(r.before), through: BigInt(r.through), memory: { candidate: r.next_candidate, holders: r.next_holders, gap: r.next_gap } };
  }

  const vxid = async (c: PgClient): Promise<string> =>
    (await c.query<{ v: string }>(`select virtualtransaction as v from pg_locks where pid = pg_backend_pid() and locktype = 'virtualxid'`)).rows[0]!.v;

  it('passes committed ids while a writer is at work, waits for its id, and passes a rolled-back id once no writer holds the lock', async () => {
    let s = await step({ candidate: null, holders: null, gap: null });
    let memory = s.memory;

    // A writer at work (the outbox's write lock held, no id yet) while another commits two events.
    await writer.query('begin');
    await writer.query('lock table outbox_event in row exclusive mode');
    await insert(committer);
    const second = await insert(committer);
    s = await step(memory);
    expect(s.through).toBe(second);
    expect(s.memory).toEqual({ candidate: null, holders: null, gap: '0' });
    memory = s.memory;

    // The writer takes an id and stays open; a later id commits. The first step stops below the
    // writer's id without the lock table; the next one, finding it still missing, reads it.
    const open = await insert(writer);
    const later = await insert(committer);
    s = await step(memory);
    expect(s.through).toBe(open - 1n);
    expect(s.memory).toEqual({ candidate: null, holders: null, gap: String(open) });
    s = await step(s.memory);
    expect(s.through).toBe(open - 1n);
    expect(s.memory).toEqual({ candidate: String(later), holders: [await vxid(writer)], gap: String(open) });
    await writer.query('commit');
    s = await step(s.memory);
    expect(s.through).toBe(later);
    expect(s.memory).toEqual({ candidate: null, holders: null, gap: '0' });
    memory = s.memory;

    // A rolled-back id: missing for good. The second step finds no writer and passes it.
    await writer.query('begin');
    const rolledBack = await insert(writer);
    await writer.query('rollback');
    const after = await insert(committer);
    s = await step(memory);
    expect(s.through).toBe(rolledBack - 1n);
    expect(s.memory.gap).toBe(String(rolledBack));
    s = await step(s.memory);
    expect(s.through).toBe(after);
    expect(s.memory).toEqual({ candidate: null, holders: null, gap: '0' });

    // Nothing handed out above the horizon: the step changes nothing.
    s = await step(s.memory);
    expect(s.through).toBe(s.before);
    expect(s.through).toBe(after);
  });
});
