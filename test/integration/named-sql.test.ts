import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { NamedStatement, query, queryVariants, type SqlRunner } from '../../shared/db/named-sql';
import { OrmSql, emSql, emTransactionSql } from '../../shared/db/orm-sql';
import { initOrm, type Orm } from '../../shared/db/orm';
import { SqlClient, SqlPool } from '../../shared/db/sql-pool';

/* Named parameters of the hot path's plain SQL (shared/db/named-sql.ts, docs/architecture.md "ORM or plain SQL"), on a bare client and on the ORM's pool. */

describe('named SQL statements', () => {
  it('numbers each named parameter once, in order of first use, and leaves casts alone', () => {
    const s = new NamedStatement('unit-numbering', 'select :a::int, :b, x::text from t where y = :a and z = :c::jsonb');
    expect(s.text).toBe('select $1::int, $2, x::text from t where y = $1 and z = $3::jsonb');
    expect(s.params).toEqual(['a', 'b', 'c']);
    expect(s.values({ c: '{}', b: null, a: 7, extra: 'ignored' })).toEqual([7, null, '{}']);
  });

  it('throws on a missing parameter and on a second statement of the same name', () => {
    const s = new NamedStatement('unit-missing', 'select :a, :b');
    expect(() => s.values({ a: 1 })).toThrow("SQL statement 'unit-missing': no value for :b");
    expect(() => new NamedStatement('unit-missing', 'select 1')).toThrow(/two SQL statements are named 'unit-missing'/);
  });

  it('builds one statement per shape of a query with optional conditions, once, and binds only what that shape names', async () => {
    const q = queryVariants<{ min: boolean }, { a: number; min?: number }, { n: number }>(
      'unit-variants',
      (s) => (s.min ? 'min' : 'all'),
      (s) => `select n from (values (1), (5), (:a::int)) v(n)${s.min ? ' where n >= :min::int' : ''} order by n`,
    );
    expect(q.statement({ min: true })).toBe(q.statement({ min: true }));
    expect(q.statement({ min: true }).name).toBe('unit-variants:min');
    expect(q.statement({ min: false }).params).toEqual(['a']);
    const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    try {
      const db = new SqlClient(pg, false);
      expect(await q(db, { min: false }, { a: 9 })).toEqual([{ n: 1 }, { n: 5 }, { n: 9 }]);
      expect(await q(db, { min: true }, { a: 9, min: 5 })).toEqual([{ n: 5 }, { n: 9 }]);
      expect(() => q(db, { min: true }, { a: 9 })).toThrow("SQL statement 'unit-variants:min': no value for :min");
    } finally {
      await pg.end();
    }
  });

  it('runs as a typed function on a real connection, named (prepared) or not', async () => {
    const q = query<{ a: number; b: string }, { a: number; b: string; again: number }>('unit-run', 'select :a::int as a, :b::text as b, :a::int + 1 as again');
    for (const prepared of [true, false]) {
      const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
      await pg.connect();
      try {
        const db = new SqlClient(pg, prepared);
        expect(await q(db, { a: 41, b: 'x' })).toEqual([{ a: 41, b: 'x', again: 42 }]);
        expect(await q(db, { a: 1, b: 'y' })).toEqual([{ a: 1, b: 'y', again: 2 }]);
      } finally {
        await pg.end();
      }
    }
    expect(q.statement.name).toBe('unit-run');
  });
});

describe('the commands\' pool kept warm (shared/db/sql-pool.ts)', () => {
  it('opens the connections it keeps open at once and runs each warm-up statement on every one of them, prepared', async () => {
    const applicationName = `sorting:test:warm-${process.pid}`;
    const pool = new SqlPool(process.env.DATABASE_URL!, { max: 4, keepOpen: 2, acquireTimeoutMs: 5000, applicationName, prepared: true }, { warn: () => undefined });
    const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    try {
      const warmUp = query<{ n: number }, { n: number }>('unit-warm-up', 'select :n::int as n');
      await pool.warm([{ statement: warmUp.statement, values: warmUp.statement.values({ n: 1 }) }]);
      const open = await pg.query<{ n: string }>('select count(*) as n from pg_stat_activity where application_name = $1', [applicationName]);
      expect(Number(open.rows[0]!.n)).toBe(2);
      // Each connection has the statement prepared (two transactions at once hold both connections).
      const preparedHere = new NamedStatement('unit-warm-prepared', `select count(*) as n from pg_prepared_statements where name = 'unit-warm-up'`);
      const [a, b] = await Promise.all([0, 1].map(() => pool.transaction(async (tx) => Number((await tx.run<{ n: string }>(preparedHere, []))[0]!.n))));
      expect([a, b]).toEqual([1, 1]);
    } finally {
      await pg.end();
      await pool.close();
    }
  });
});

describe('the commands\' pool plans its statements afresh (shared/db/sql-pool.ts, replanAfterMs)', () => {
  it('replaces a plan made while a table was nearly empty, which nothing else would, once the table has grown', async () => {
    const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    // A table of scanned items, its statement and a pool of one connection (so every statement meets the same
    // prepared statement and its plans), made anew for each try below.
    const setUp = async (attempt: number) => {
      const table = `unit_replan_${process.pid}_${attempt}`;
      // The scanned items' table as the migrations make it, empty, never analyzed: costed at ten pages of its rows.
      // Autovacuum stays off it: an automatic ANALYZE after the 100,000 rows below would replace the plan itself.
      await pg.query(
        `drop table if exists ${table}; create table ${table} (like sort_box_item including defaults including indexes) with (autovacuum_enabled = off, toast.autovacuum_enabled = off)`,
      );
      const rows = (from: number, to: number) =>
        pg.query(`insert into ${table} (id, client_id, wall_id, crc, order_id, order_item_id, product_id, sku, barcode, user_id, session_id, color)
                  select g, 1, 1, 'ABCD0123', g, g, 1, 'SKU-1', '4006381333931', 1, 1, 'Red' from generate_series(${from}, ${to}) g`);
      await rows(1, 200);
      // The hot write's form: rows found by their ids, given as a JSON array (workers/sorting/queries/wall-write.queries.ts).
      const touch = query<{ rows: string; wallId: number }, { n: number }>(
        `unit-replan-${process.pid}-${attempt}`,
        `with u as (update ${table} t set confirmed_units = x.units from jsonb_to_recordset(:rows::jsonb) as x(id int, units int)
                     where t.id = any(array(select (e->>'id')::int from jsonb_array_elements(:rows::jsonb) e)) and t.id = x.id and t.wall_id = :wallId::int returning 1)
         select count(*)::int as n from u`,
      );
      const explain = new NamedStatement(`unit-replan-explain-${process.pid}-${attempt}`, `explain (costs off) execute "${touch.statement.name}"('[{"id": 1, "units": 1}]', 1)`);
      const planOf = async (db: SqlRunner) => (await db.run<{ 'QUERY PLAN': string }>(explain, [])).map((r) => r['QUERY PLAN']).join('\n');
      // Every minute at most, but a new connection's first replanning comes after a second (the table of a new database grows fastest).
      const pool = new SqlPool(process.env.DATABASE_URL!, { max: 1, acquireTimeoutMs: 5000, applicationName: 'sorting:test:replan', prepared: true, replanAfterMs: 60_000 }, { warn: () => undefined });
      return { table, rows, touch, planOf, pool, seqScan: new RegExp(`Seq Scan on ${table}`) };
    };
    const planCounts = query<{ name: string }, { generic_plans: string; custom_plans: string }>(
      `unit-replan-counts-${process.pid}`,
      'select generic_plans, custom_plans from pg_prepared_statements where name = :name',
    );
    const tries: Awaited<ReturnType<typeof setUp>>[] = [];
    try {
      // Taken once: no DISCARD in between. Made on 200 rows, the generic plan scans the table, and goes on scanning
      // it once the table holds 100,000 rows (no ANALYZE, no VACUUM to invalidate it). Something outside the test can
      // still make this connection drop the plan while it waits for the rows (once under CI's load: a custom plan came
      // next). The other test workers' DDL fills PostgreSQL's shared invalidation queue; a connection made to catch up
      // on it reads what was pending for its tables, and one that fell too far behind is reset and drops every cached
      // plan, as the DISCARD tested below would. Such a try proves nothing either way: three tries at most, each plan
      // and the statement's plan counts kept for the failure message.
      let kept: Awaited<ReturnType<typeof setUp>> | undefined;
      const plansAfterGrowth: { plan: string; counts: unknown }[] = [];
      for (let attempt = 1; attempt <= 3 && !kept; attempt++) {
        const t = await setUp(attempt);
        tries.push(t);
        const plan = await t.pool.transaction(async (tx) => {
          for (let i = 0; i < 8; i++) expect(await t.touch(tx, { rows: JSON.stringify([{ id: 1 + i, units: 1 }]), wallId: 1 })).toEqual([{ n: 1 }]);
          expect(await t.planOf(tx)).toMatch(t.seqScan);
          await t.rows(201, 100_000);
          return { plan: await t.planOf(tx), counts: await planCounts(tx, { name: t.touch.statement.name }) };
        });
        plansAfterGrowth.push(plan);
        if (t.seqScan.test(plan.plan)) kept = t;
      }
      expect({ kept: kept !== undefined, plansAfterGrowth }).toMatchObject({ kept: true });
      const { pool, planOf, touch, seqScan, table } = kept!;
      // Taken again a second after the connection opened: DISCARD PLANS first, so the statement is planned on the table as it is.
      const deadline = Date.now() + 5000;
      let plan = await planOf(pool);
      while (seqScan.test(plan) && Date.now() < deadline) plan = await planOf(pool);
      expect(plan).toMatch(new RegExp(`Index Scan using ${table}_pkey|Bitmap Index Scan on ${table}_pkey`));
      expect(await touch(pool, { rows: JSON.stringify([{ id: 90_000, units: 1 }]), wallId: 1 })).toEqual([{ n: 1 }]);
    } finally {
      for (const t of tries) {
        await t.pool.close();
        await pg.query(`drop table if exists ${t.table}`);
      }
      await pg.end();
    }
  });
});

describe('named SQL on the ORM pool (shared/db/orm-sql.ts)', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await initOrm(process.env.DATABASE_URL!, 2);
  });
  afterAll(async () => {
    await orm?.close();
  });

  const backendPid = query<Record<string, never>, { pid: number }>('unit-orm-backend', 'select pg_backend_pid() as pid');
  const transactionId = query<Record<string, never>, { id: string | null }>('unit-orm-txid', 'select txid_current_if_assigned()::text as id');
  const insertFailedJob = query<{ jobId: string }>(
    'unit-orm-insert',
    `insert into failed_job (queue, job_name, job_id, data, error, attempts) values ('unit', 'unit', :jobId, '{}'::jsonb, 'unit', 1)`,
  );

  it.each([true, false])('runs a transaction on the connection of its MikroORM transaction, rolled back with it (prepared: %s)', async (prepared) => {
    const db = OrmSql.of(orm.em, prepared);
    const [first, second] = await db.transaction(async (tx) => [(await backendPid(tx, {}))[0]!.pid, (await backendPid(tx, {}))[0]!.pid]);
    expect(first).toBe(second);

    // The ORM's statements and the runner's are one transaction: one id, gone with the rollback.
    const jobId = `orm-sql-${prepared}-${Date.now()}`;
    const err = await orm.em
      .fork()
      .transactional(async (em) => {
        const tx = emTransactionSql(em, prepared);
        await insertFailedJob(tx, { jobId });
        const [{ id: ours }] = await transactionId(tx, {});
        const [{ id: orms }] = await em.execute<{ id: string | null }[]>('select txid_current_if_assigned()::text as id');
        expect(ours).not.toBeNull();
        expect(ours).toBe(orms);
        throw new Error('roll back');
      })
      .catch((e: Error) => e);
    expect(err.message).toBe('roll back');
    expect(await orm.em.fork().execute('select 1 from failed_job where job_id = ?', [jobId])).toEqual([]);
  });

  it("runs a request's statement where em.execute would: on the EntityManager's transaction while it is in one, else on the pool", async () => {
    const jobId = `orm-sql-em-${Date.now()}`;
    const err = await orm.em
      .fork()
      .transactional(async (em) => {
        await insertFailedJob(emSql(em), { jobId });
        const [{ id: ours }] = await transactionId(emSql(em), {});
        const [{ id: orms }] = await em.execute<{ id: string | null }[]>('select txid_current_if_assigned()::text as id');
        expect(ours).toBe(orms);
        throw new Error('roll back');
      })
      .catch((e: Error) => e);
    expect(err.message).toBe('roll back');
    expect(await orm.em.fork().execute('select 1 from failed_job where job_id = ?', [jobId])).toEqual([]);
    // Outside a transaction each statement is its own: nothing is assigned a transaction id before it writes.
    expect(await transactionId(emSql(orm.em.fork()), {})).toEqual([{ id: null }]);
  });

  it('sends the statement as written, named when prepared, a literal ? left alone, its values in no error message', async () => {
    const hasKey = query<{ doc: string; key: string }, { has: boolean; same: boolean }>(
      'unit-orm-jsonb-key',
      "select :doc::jsonb ? :key::text as has, :key::text = :key::text as same",
    );
    const prepared = query<Record<string, never>, { names: string[] }>('unit-orm-prepared', 'select coalesce(array_agg(name::text order by name), array[]::text[]) as names from pg_prepared_statements');
    await OrmSql.of(orm.em, true).transaction(async (tx) => {
      expect(await hasKey(tx, { doc: '{"a":1}', key: 'a' })).toEqual([{ has: true, same: true }]);
      const [{ names }] = await prepared(tx, {});
      expect(names).toEqual(expect.arrayContaining(['unit-orm-jsonb-key', 'unit-orm-prepared']));
    });
    await OrmSql.of(orm.em, false).transaction(async (tx) => {
      expect(await hasKey(tx, { doc: '{"a":1}', key: 'b' })).toEqual([{ has: false, same: true }]);
    });
    const failing = query<{ secret: string; zero: number }>('unit-orm-failing', 'select :secret::text as s, 1 / :zero::int as n');
    const err = (await failing(OrmSql.of(orm.em, true), { secret: 'pin-4711', zero: 0 }).catch((e: unknown) => e)) as { code?: string; message: string };
    expect(err.code).toBe('22012'); // division_by_zero, as pg raised it
    expect(err.message).not.toContain('pin-4711');
  });

  it("reaches no private field of knex's client: only MikroORM's and knex's public API", () => {
    const source = readFileSync(path.resolve(__dirname, '../../shared/db/orm-sql.ts'), 'utf8');
    expect(source).not.toMatch(/acquireConnection|releaseConnection|__knex|\.client\b/);
  });

  it('refuses a statement outside a transaction or after it ended, never running it on another connection', async () => {
    expect(() => emTransactionSql(orm.em.fork(), true)).toThrow(/in no transaction/);
    let kept!: SqlRunner;
    await orm.em.fork().transactional(async (em) => {
      kept = emTransactionSql(em, true);
    });
    await expect(backendPid(kept, {})).rejects.toThrow("SQL statement 'unit-orm-backend': its transaction is already over");
  });
});
