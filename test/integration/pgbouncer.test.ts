import request from 'supertest';
import { Client as PgClient } from 'pg';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';
import { closedPort } from '../support/api-process';
import { pgbouncerVersion, startPgBouncer, type LocalPgBouncer } from '../support/pgbouncer';
import { query } from '../../shared/db/named-sql';
import { WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';

/*
 * The service behind PgBouncer (docs/scaling.md): the API, the sorting worker and the outbox relay
 * all on connections through a PgBouncer of the test's own (on an ephemeral port), in session mode with
 * named prepared statements (the default), and in transaction mode with DATABASE_PREPARED_STATEMENTS
 * off, as PgBouncer before 1.21 requires. Skipped, with a message, only where pgbouncer is not installed.
 */

jest.setTimeout(90_000);
process.env.COMMAND_TIMEOUT_MS = '30000';

const version = pgbouncerVersion();
const describeIfBouncer = version ? describe : describe.skip;
if (!version) console.warn('pgbouncer.test.ts skipped: the pgbouncer binary is not installed (apt-get install pgbouncer).');

/** The application_name a connection has on the server, past the pooler. */
const serverApplicationName = query<Record<string, never>, { name: string }>('test-server-application-name', "select current_setting('application_name') as name");

const CASES = [
  { mode: 'session' as const, prepared: true, poolSize: 10 },
  // Two server connections for an API pool of 10 plus the workers': transactions must share them.
  { mode: 'transaction' as const, prepared: false, poolSize: 2 },
];

describeIfBouncer.each(CASES)('behind PgBouncer in $mode mode (DATABASE_PREPARED_STATEMENTS=$prepared)', ({ mode, prepared, poolSize }) => {
  let bouncer: LocalPgBouncer;
  // An ephemeral port: 6432 is PgBouncer's default, taken wherever one runs as a service.
  let port: number;
  let api: TestApi;
  const direct = process.env.DATABASE_URL!;
  const dbName = new URL(direct).pathname.slice(1);
  const saved = { url: process.env.DATABASE_URL, prepared: process.env.DATABASE_PREPARED_STATEMENTS };

  beforeAll(async () => {
    port = await closedPort();
    bouncer = await startPgBouncer({ port, mode, poolSize });
    process.env.DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/${dbName}`;
    process.env.DATABASE_PREPARED_STATEMENTS = String(prepared);
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
  });

  afterAll(async () => {
    await api?.close();
    await bouncer?.stop();
    process.env.DATABASE_URL = saved.url;
    if (saved.prepared === undefined) delete process.env.DATABASE_PREPARED_STATEMENTS;
    else process.env.DATABASE_PREPARED_STATEMENTS = saved.prepared;
  });

  it('runs scans and confirms of three sorters at once, relays their events, and every connection goes through the pooler', async () => {
    expect(api.runtime.config.DATABASE_URL).toContain(`:${port}/`);
    expect(api.runtime.config.DATABASE_PREPARED_STATEMENTS).toBe(prepared);
    const floor = await buildFloor(api, { slots: 4, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 30 }] }] });
    const sorters = await Promise.all([1, 2, 3].map((n) => floor.sorter(n)));
    const tokens = await Promise.all(
      sorters.map(async (s) => {
        const res = await connect(api, floor, s.auth);
        expect(res.status).toBe(200);
        return res.body.token as string;
      }),
    );
    const itemIds: number[] = [];
    await Promise.all(
      sorters.map(async (s, i) => {
        for (let k = 0; k < 4; k++) {
          const scanned = await scan(api, s.auth, tokens[i]!, 'SKU-A');
          expect({ status: scanned.status, body: scanned.status === 200 ? undefined : scanned.body }).toEqual({ status: 200, body: undefined });
          const confirmed = await request(api.app).patch(`/api/v1/sort-box-items/${scanned.body.id}/confirm`).set('Authorization', s.auth).send({});
          expect({ status: confirmed.status, body: confirmed.status === 200 ? undefined : confirmed.body }).toEqual({ status: 200, body: undefined });
          itemIds.push(scanned.body.id as number);
        }
      }),
    );

    // What PostgreSQL holds, read past the pooler.
    const pg = new PgClient({ connectionString: direct });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ n: string }>("select count(*) as n from sort_box_item where client_id = $1 and status = 'Confirmed'", [floor.tenant.clientId]);
      expect(Number(rows[0]!.n)).toBe(12);
      const [line] = (await pg.query<{ confirmed_qty: number; pending_qty: number }>('select confirmed_qty, pending_qty from order_item where client_id = $1', [floor.tenant.clientId])).rows;
      expect(line).toEqual({ confirmed_qty: 12, pending_qty: 0 });
      // The relay (also behind the pooler) published every event of this client.
      await waitFor(
        async () => {
          const r = await pg.query<{ n: string }>('select count(*) as n from outbox_event where client_id = $1 and id > (select through from outbox_horizon)', [floor.tenant.clientId]);
          return Number(r.rows[0]!.n) === 0;
        },
        { timeoutMs: 15_000, what: 'the outbox relay to publish every event' },
      );
    } finally {
      await pg.end();
    }

    // The actors' connections keep their name on the server connections they get: the triggers that move
    // wall versions for every other writer leave their writes out (docs/architecture.md "Changes from outside").
    for (let i = 0; i < 3; i++) expect(await serverApplicationName(api.runtime.sqlPool(), {})).toEqual([{ name: WALL_ACTOR_APPLICATION_NAME }]);

    const stats = await bouncer.admin<{ database: string; total_xact_count: string }>('SHOW STATS');
    const ours = stats.find((s) => s.database === dbName);
    expect(Number(ours?.total_xact_count ?? 0)).toBeGreaterThan(24);
    const pools = await bouncer.admin<{ database: string; sv_active: string; sv_idle: string; sv_used: string; sv_tested: string; sv_login: string; pool_mode: string }>('SHOW POOLS');
    const pool = pools.find((p) => p.database === dbName);
    expect(pool?.pool_mode).toBe(mode);
    const serverConnections = ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce((n, k) => n + Number((pool as Record<string, string>)[k] ?? 0), 0);
    expect(serverConnections).toBeLessThanOrEqual(poolSize);
  });
});
