import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { SqlClient } from '../../shared/db/sql-pool';
import { outboxBacklog } from '../../services/api/use-cases/operations/operations.queries';
import { deleteOldPrintJobs } from '../../workers/labels/print.queries';
import { deleteOldAppliedCommands } from '../../workers/sweeper/sweep.queries';
import { wallLightStates, type WallStateRow } from '../../workers/lights/lights.queries';

/*
 * Statements that run beside the floor's work, on a floor's history: the outbox gauges of /metrics on a
 * week of events (all relayed but the last few) must read the few events above the relay's horizon, not
 * a share of the week; a retention batch must read about its batch, not the table. The statements run
 * unchanged against tables of their names in a schema of the test's own (search_path), filled and
 * analyzed.
 */

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Plan Rows': number; 'Index Cond'?: string; Plans?: PlanNode[] };

/** Every node of a plan with the node above it. */
function nodes(plan: PlanNode, parent: PlanNode | null = null): { node: PlanNode; parent: PlanNode | null }[] {
  return [{ node: plan, parent }, ...(plan.Plans ?? []).flatMap((p) => nodes(p, plan))];
}

/**
 * A schema of the test's own, on the jest worker's database, holding copies of the named public tables
 * (`like … including all`) that `fill` fills: the connection's search_path finds them before public's.
 */
function scratchSchema(prefix: string, tables: string[], fill: (pg: PgClient, schema: string) => Promise<void>): PgClient {
  const schema = `${prefix}_${randomUUID().slice(0, 8)}`;
  const pg = new PgClient({ connectionString: process.env.DATABASE_URL });
  beforeAll(async () => {
    await pg.connect();
    await pg.query(`create schema ${schema}`);
    for (const table of tables) await pg.query(`create table ${schema}.${table} (like public.${table} including all)`);
    await fill(pg, schema);
    await pg.query(`set search_path = ${schema}`);
  });
  afterAll(async () => {
    await pg.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await pg.end();
  });
  return pg;
}

describe('the outbox gauges on a week of events', () => {
  const EVENTS = 200_000;
  const pg = scratchSchema('gauge_plans', ['outbox_event', 'outbox_horizon'], async (db, schema) => {
    await db.query(`
      insert into ${schema}.outbox_event (id, event_id, client_id, wall_id, type, occurred_at, data)
      select g, gen_random_uuid(), 1, 1, 'wall.updated', now() - interval '7 days' + g * interval '3 seconds', '{}'::jsonb
        from generate_series(1, ${EVENTS}) g`);
    // Every event relayed but the last five.
    await db.query(`insert into ${schema}.outbox_horizon (through) values (${EVENTS - 5})`);
    await db.query(`analyze ${schema}.outbox_event, ${schema}.outbox_horizon`);
  });

  it('gauge-outbox-backlog counts the events above the horizon along the key, without parallel workers, and finds them', async () => {
    const { statement } = outboxBacklog;
    const [{ 'QUERY PLAN': [{ Plan: plan }] }] = (await pg.query(`explain (format json) ${statement.text}`)).rows as { 'QUERY PLAN': [{ Plan: PlanNode }] }[];
    const all = nodes(plan);
    expect(all.map(({ node }) => node['Node Type'])).not.toContain('Gather');
    // Every read of outbox_event not cut short by a LIMIT is planned for a handful of rows, not a third of the week's.
    const reads = all.filter(({ node, parent }) => node['Relation Name'] === 'outbox_event' && parent?.['Node Type'] !== 'Limit');
    expect(reads.length).toBeGreaterThan(0);
    expect(Math.max(...reads.map(({ node }) => node['Plan Rows']))).toBeLessThanOrEqual(EVENTS / 100);
    const [row] = (await pg.query(statement.text)).rows as { lag: string; unpublished: string }[];
    expect(Number(row!.unpublished)).toBe(5);
    expect(Number(row!.lag)).toBeGreaterThan(0);
  });
});

describe('a retention batch on a day of command records', () => {
  const RECORDS = 300_000;
  let schema = '';
  const pg = scratchSchema('retention_plans', ['applied_command'], async (db, name) => {
    schema = name;
    // Two days of records, in the order they were written: the first half is past the retention.
    await db.query(`
      insert into ${name}.applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
      select gen_random_uuid(), 1, 1, 'item.confirm', 0, g, '{"status": "Confirmed"}'::jsonb, now() - interval '48 hours' + g * (interval '48 hours' / ${RECORDS})
        from generate_series(1, ${RECORDS}) g`);
    await db.query(`analyze ${name}.applied_command`);
  });

  it('retention-applied-commands, as the generic plan of its prepared statement, deletes its batch reading about as many pages', async () => {
    const { statement } = deleteOldAppliedCommands;
    const [{ pages }] = (await pg.query(`select relpages as pages from pg_class where oid = '${schema}.applied_command'::regclass`)).rows as { pages: number }[];
    await pg.query('begin');
    try {
      // The plan a prepared statement switches to after its fifth run: made without the values.
      await pg.query('set local plan_cache_mode = force_generic_plan');
      await pg.query(`prepare retention_batch as ${statement.text}`);
      const values = statement.values({ cutoff: new Date(Date.now() - 24 * 3600_000), batch: 100 }) as [Date, number];
      const [{ 'QUERY PLAN': [{ Plan: plan }] }] = (
        await pg.query(`explain (analyze, buffers, format json) execute retention_batch(${pg.escapeLiteral(values[0].toISOString())}, ${values[1]})`)
      ).rows as { 'QUERY PLAN': [{ Plan: PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Actual Rows': number } }] }[];
      const read = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
      expect(pages).toBeGreaterThan(2000);
      expect({ read, under: read < pages / 8 }).toEqual({ read, under: true });
      const [{ n }] = (await pg.query(`execute retention_batch(${pg.escapeLiteral(values[0].toISOString())}, ${values[1]})`)).rows as { n: number }[];
      expect(n).toBe(100);
    } finally {
      await pg.query('rollback');
    }
  });
});

describe("the light gateway's wall states on a week of one busy wall's events", () => {
  // Wall 1 has a week of events; wall 2 one event a week ago and a button pressed since; wall 3 none.
  const EVENTS = 200_000;
  const pg = scratchSchema('light_state_plans', ['outbox_event', 'wall', 'sort_box', 'sort_box_item', 'wall_light_mode'], async (db, schema) => {
    await db.query(`insert into ${schema}.wall (id, client_id, name) values (1, 1, 'busy'), (2, 1, 'idle'), (3, 1, 'new')`);
    await db.query(`
      insert into ${schema}.outbox_event (id, event_id, client_id, wall_id, type, occurred_at, data)
      select g, gen_random_uuid(), 1, case when g = 10 then 2 else 1 end, 'sort-box-item.confirmed', now() - interval '7 days' + g * interval '3 seconds', '{}'::jsonb
        from generate_series(1, ${EVENTS}) g`);
    // Written outside the walls' command order: not what a state holds.
    await db.query(`
      insert into ${schema}.outbox_event (id, event_id, client_id, wall_id, type, occurred_at, data)
      values (${EVENTS + 1}, gen_random_uuid(), 1, 2, 'lights.button', now(), '{}'), (${EVENTS + 2}, gen_random_uuid(), 1, 1, 'lights.mode', now(), '{}')`);
    await db.query(`analyze ${schema}.outbox_event, ${schema}.wall`);
  });

  it('lights-wall-states finds each wall\'s last event of its command order along the wall\'s index, reading a few pages', async () => {
    const { statement } = wallLightStates;
    const values = statement.values({ wallIds: [1, 2, 3] });
    const [{ 'QUERY PLAN': [plan] }] = (await pg.query({ text: `explain (analyze, buffers, format json) ${statement.text}`, values })).rows as {
      'QUERY PLAN': [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }];
    }[];
    const [{ pages }] = (await pg.query(`select relpages as pages from pg_class where oid = 'outbox_event'::regclass`)).rows as { pages: number }[];
    const read = plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks'];
    expect(pages).toBeGreaterThan(1000);
    expect({ read, under: read < 100 }).toEqual({ read, under: true });
    const rows = (await pg.query<WallStateRow>({ text: statement.text, values })).rows.sort((a, b) => a.wallId - b.wallId);
    expect(rows.map((r) => [r.wallId, r.through])).toEqual([
      [1, String(EVENTS)],
      [2, '10'],
      [3, '0'],
    ]);
  });
});

describe('the print jobs retention', () => {
  const pg = scratchSchema('print_retention', ['print_job'], async () => undefined);

  it('deletes finished jobs older than its days, at most a batch, and keeps queued and recent ones', async () => {
    const { rows } = await pg.query<{ id: number; status: string; age: number }>(`
      insert into print_job (client_id, printer_id, source, body, status, created_at)
      select 1, 1, 'test', '\\x00'::bytea, s, now() - make_interval(days => a)
        from (values ('Sent', 10), ('Failed', 9), ('Sent', 8), ('Queued', 10), ('Sent', 1)) v(s, a)
      returning id, status, extract(day from now() - created_at)::int as age`);
    const first = await deleteOldPrintJobs(new SqlClient(pg, false), { days: 7, batch: 2 });
    const second = await deleteOldPrintJobs(new SqlClient(pg, false), { days: 7, batch: 2 });
    const old = rows.filter((r) => r.status !== 'Queued' && r.age >= 7).map((r) => r.id);
    expect(first.map((r) => r.id)).toEqual(old.slice(0, 2));
    expect(second.map((r) => r.id)).toEqual(old.slice(2));
    const left = (await pg.query<{ id: number }>('select id from print_job order by id')).rows.map((r) => r.id);
    expect(left).toEqual(rows.filter((r) => !old.includes(r.id)).map((r) => r.id));
  });
});
