import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { outboxBacklog } from '../../services/api/use-cases/operations/operations.queries';

/*
 * The outbox gauges of /metrics on a floor's outbox (a week of events, all relayed but the last few):
 * their plans must read the few events above the relay's horizon, not a share of the week. The
 * statements run unchanged against tables of their names in a schema of the test's own (search_path),
 * filled with 200,000 events and analyzed.
 */

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Plan Rows': number; 'Index Cond'?: string; Plans?: PlanNode[] };

/** Every node of a plan with the node above it. */
function nodes(plan: PlanNode, parent: PlanNode | null = null): { node: PlanNode; parent: PlanNode | null }[] {
  return [{ node: plan, parent }, ...(plan.Plans ?? []).flatMap((p) => nodes(p, plan))];
}

describe('the outbox gauges on a week of events', () => {
  const EVENTS = 200_000;
  const schema = `gauge_plans_${randomUUID().slice(0, 8)}`;
  const pg = new PgClient({ connectionString: process.env.DATABASE_URL });

  beforeAll(async () => {
    await pg.connect();
    await pg.query(`create schema ${schema}`);
    await pg.query(`create table ${schema}.outbox_event (like public.outbox_event including indexes)`);
    await pg.query(`create table ${schema}.outbox_horizon (like public.outbox_horizon including all)`);
    await pg.query(`
      insert into ${schema}.outbox_event (id, event_id, client_id, wall_id, type, occurred_at, data)
      select g, gen_random_uuid(), 1, 1, 'wall.updated', now() - interval '7 days' + g * interval '3 seconds', '{}'::jsonb
        from generate_series(1, ${EVENTS}) g`);
    // Every event relayed but the last five.
    await pg.query(`insert into ${schema}.outbox_horizon (through) values (${EVENTS - 5})`);
    await pg.query(`analyze ${schema}.outbox_event, ${schema}.outbox_horizon`);
    await pg.query(`set search_path = ${schema}`);
  });

  afterAll(async () => {
    await pg.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await pg.end();
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
