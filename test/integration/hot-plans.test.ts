import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client as PgClient } from 'pg';
import type { NamedStatement, SqlRunner } from '../../shared/db/named-sql';
import type { CommandHandlers } from '../../shared/commands/command-job';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { addSlots, addWall, addEmployee } from '../support/fixtures';
import { newTenant, startTestApi, type Tenant, type TestApi } from '../support/test-api';
import { TEST_PG_BASE, dropDatabase, templateDbName, withAdmin, workerDbName } from '../support/test-db';

/*
 * Plans that cannot go quadratic (docs/architecture.md "Plans that cannot go quadratic"): every
 * statement of the command path costs what it touches whatever the planner knows. A fresh database
 * with autovacuum off gets 10,000 orders through the admin loader (two lines of 5 units over five SKUs,
 * twenty warehouses); a wall's actor then runs a shift's commands, and each statement it sends is
 * measured first with EXPLAIN (ANALYZE, BUFFERS), with its real parameters, both as a custom plan
 * and as the generic plan a prepared statement may switch to. Then ANALYZE, and the same commands on a
 * wall of another warehouse holding the same shape of data: every statement must touch the same number
 * of buffers (within a small tolerance) before and after the statistics exist.
 *
 * To bound another statement, run it through `ExplainingRunner` in a pass. DEBUG_PLANS=<statement
 * names, comma-separated> prints their plans (custom plan, node by node) and any refused command.
 */

jest.setTimeout(300_000);

const WAREHOUSES = 20;
const SKUS = ['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5'];
const ORDERS = 10_000;

type Buffers = { custom: number; generic: number };

/** A SqlRunner that measures each statement (in a transaction it rolls back) before running it for real. */
class ExplainingRunner implements SqlRunner {
  readonly measured = new Map<string, Buffers>();
  command = '';

  constructor(
    private readonly real: SqlRunner,
    private readonly explain: PgClient,
  ) {}

  async run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
    const key = `${this.command} · ${statement.name}`;
    const custom = await this.buffers(statement, values, false);
    const generic = await this.buffers(statement, values, true);
    const before = this.measured.get(key);
    this.measured.set(key, { custom: Math.max(custom, before?.custom ?? 0), generic: Math.max(generic, before?.generic ?? 0) });
    return this.real.run<R>(statement, values);
  }

  private literal(v: unknown): string {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (v instanceof Date) return this.explain.escapeLiteral(v.toISOString());
    if (Array.isArray(v)) return this.explain.escapeLiteral(`{${v.join(',')}}`);
    return this.explain.escapeLiteral(String(v));
  }

  /** Shared buffers (hit and read) the statement's execution touches; nothing it does stays. */
  private async buffers(statement: NamedStatement, values: unknown[], generic: boolean): Promise<number> {
    const c = this.explain;
    await c.query('begin');
    try {
      let rows: { 'QUERY PLAN': { Plan: Record<string, number> }[] }[];
      if (generic) {
        // The plan a prepared statement runs once PostgreSQL chose its generic plan.
        await c.query('set local plan_cache_mode = force_generic_plan');
        await c.query(`prepare measured as ${statement.text}`);
        rows = (await c.query(`explain (analyze, buffers, format json) execute measured(${values.map((v) => this.literal(v)).join(', ')})`)).rows;
      } else {
        rows = (await c.query({ text: `explain (analyze, buffers, format json) ${statement.text}`, values })).rows;
      }
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      if (process.env.DEBUG_PLANS && !generic && process.env.DEBUG_PLANS.split(',').includes(statement.name)) {
        process.stdout.write(`\n### ${this.command} ${statement.name}\n${JSON.stringify(plan, (k, v) => (['Output', 'Plan Width', 'Startup Cost', 'Actual Startup Time', 'Parallel Aware', 'Async Capable', 'Local Hit Blocks', 'Local Read Blocks', 'Local Dirtied Blocks', 'Local Written Blocks', 'Temp Read Blocks', 'Temp Written Blocks', 'Shared Written Blocks'].includes(k) ? undefined : v))}\n`);
      }
      return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
    } finally {
      await c.query('rollback');
      if (generic) await c.query('deallocate measured').catch(() => undefined);
    }
  }
}

describe('hot statements touch what they need, with or without statistics', () => {
  const database = `${workerDbName(process.env.JEST_WORKER_ID ?? '1')}_plans`;
  const url = `${TEST_PG_BASE}/${database}`;
  let api: TestApi;
  let tenant: Tenant;
  let explain: PgClient;

  beforeAll(async () => {
    await withAdmin(async (pg) => {
      await dropDatabase(pg, database);
      await pg.query(`create database "${database}" template "${templateDbName()}"`);
    });
    explain = new PgClient({ connectionString: url });
    await explain.connect();
    // No statistics until the test gathers them: autovacuum would analyze the loaded tables meanwhile.
    const { rows } = await explain.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = 'public'`);
    for (const { t } of rows) await explain.query(`alter table "${t}" set (autovacuum_enabled = off, toast.autovacuum_enabled = off)`);
    api = await startTestApi({ env: { DATABASE_URL: url } }); // no sorting worker: the actors below run every command
    tenant = await newTenant(api, 'Plans');
    const put = async (path: string, body: object[]) => {
      const res = await request(api.app).put(`/api/v1/admin/${path}`).set('Authorization', tenant.auth).send(body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
    };
    await put('warehouses', Array.from({ length: WAREHOUSES }, (_, w) => ({ id: w + 1, name: `DC ${w + 1}` })));
    // SKU-2's units are confirmed with their serial numbers: a confirm of it reads where its serial was sorted.
    await put('products', SKUS.map((sku) => ({ sku, title: sku, requiresSerial: sku === 'SKU-2' })));
    const shipTo = { name: 'Jane Doe', street1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' };
    // Order i: warehouse i mod 20; its k-th order in that warehouse has lines of SKU k mod 5 and
    // SKU k + 1 mod 5, 5 units each: every warehouse holds the same shape of data.
    await put(
      'orders',
      Array.from({ length: ORDERS }, (_, i) => {
        const k = Math.floor(i / WAREHOUSES);
        return {
          id: i + 1,
          warehouseId: (i % WAREHOUSES) + 1,
          orderDate: new Date(Date.UTC(2026, 10, 1) + k * 60_000).toISOString(),
          shipTo,
          items: [
            { sku: SKUS[k % SKUS.length]!, qty: 5 },
            { sku: SKUS[(k + 1) % SKUS.length]!, qty: 5 },
          ],
        };
      }),
    );
  });

  /**
   * A floor that has been working for a while: slots of other walls, ended sessions and finished
   * scans by the ten thousand, so that with statistics the planner has as little reason to scan a
   * table whole as without (a table of a few rows is read whole, rightly, once it is known to be small).
   */
  async function history(): Promise<void> {
    const em = api.runtime.orm.em.fork();
    const old = await addWall(em, tenant.clientId, { name: 'Old wall', warehouseId: WAREHOUSES });
    await addSlots(em, tenant.clientId, old.id, 240);
    const c = tenant.clientId;
    await explain.query(
      `insert into sorter_session (token, client_id, wall_id, user_id, color, status, started_at, last_activity_at, expires_at, ended_at, end_reason)
       select 'old-' || g, $1, $2, $3, 'Red', 'Ended', now() - interval '1 day', now() - interval '1 day', now(), now() - interval '1 day', 'Stopped'
         from generate_series(1, 5000) g`,
      [c, old.id, tenant.adminId],
    );
    await explain.query(
      `insert into sort_box_item (client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode, user_id, session_id, color, units, confirmed_units, status, created_at, confirmed_at,
                                  requires_serial, serial)
       select $1, $2, sb.id, sb.crc, oi.order_id, oi.id, p.id, oi.sku, oi.sku, $3, s.id, 'Red', 1, 1, 'Confirmed', now() - interval '1 day', now() - interval '1 day',
              p.requires_serial, case when p.requires_serial then 'OLD-SN-' || g end
         from generate_series(0, 39999) g
         join (select row_number() over (order by position) - 1 as k, id, crc from sort_box where wall_id = $2) sb on sb.k = g % 240
         join (select row_number() over (order by id) - 1 as k, id, order_id, sku from order_item where client_id = $1 and warehouse_id = $4) oi on oi.k = g % 500
         join product p on p.client_id = $1 and p.sku = oi.sku
         join (select row_number() over (order by id) - 1 as k, id from sorter_session where wall_id = $2) s on s.k = g % 5000`,
      [c, old.id, tenant.adminId, WAREHOUSES],
    );
  }

  afterAll(async () => {
    await api?.close();
    await explain?.end();
    await withAdmin((pg) => dropDatabase(pg, database));
  });

  /** A shift's commands on a new wall of `warehouseId`, every statement measured. */
  async function pass(warehouseId: number): Promise<Map<string, Buffers>> {
    const em = api.runtime.orm.em.fork();
    const wall = await addWall(em, tenant.clientId, { name: `Wall ${warehouseId}`, warehouseId });
    await addSlots(em, tenant.clientId, wall.id, 24);
    const sorter = await addEmployee(em, tenant.clientId, { roles: ['Sorter'] });
    const manager = { userId: tenant.adminId, roles: ['Admin' as const] };
    const runner = new ExplainingRunner(api.runtime.sqlPool(), explain);
    const handlers: CommandHandlers = sortingHandlers(new WallActors({ db: runner, log: api.runtime.log, sessionIdleTimeoutMs: 3_600_000 }, api.runtime.config.QUEUE_PARTITIONS));
    let jobId = 0;
    const base = { clientId: tenant.clientId, wallId: wall.id };
    const as = { userId: sorter.id, roles: ['Sorter' as const] };
    const run = async <N extends keyof CommandHandlers>(label: string, name: N, payload: Parameters<CommandHandlers[N]>[0]) => {
      runner.command = label;
      const outcome = await (handlers[name] as (p: unknown, j: unknown) => ReturnType<CommandHandlers[N]>)(payload, { commandId: randomUUID(), partition: 0, jobId: ++jobId });
      if (!outcome.ok && process.env.DEBUG_PLANS) process.stdout.write(`${label}: ${JSON.stringify(outcome)}\n`);
      return outcome as { ok: boolean; value?: any; problem?: { code: string } };
    };
    const connected = await run('session.start', 'session.start', { ...base, ...as, picklistId: null });
    const token = connected.value.token as string;
    const scan = (label: string, barcode: string) => run(label, 'item.scan', { ...base, ...as, sessionToken: token, barcode, barcodeInputMethod: 'Scanned', idempotencyKey: null });
    const first = await scan('item.scan (candidates read)', 'SKU-1');
    expect(first).toMatchObject({ ok: true, value: { sku: 'SKU-1', position: 1 } });
    const second = await scan('item.scan (an order of the wall)', 'SKU-1');
    expect(second).toMatchObject({ ok: true, value: { orderId: first.value.orderId } });
    expect(await run('item.confirm', 'item.confirm', { ...base, ...as, itemId: first.value.id, units: 1, barcode: null })).toMatchObject({ ok: true });
    expect(await run('item.cancel', 'item.cancel', { ...base, ...as, itemId: second.value.id })).toMatchObject({ ok: true });
    expect(await scan('item.scan (refused)', 'NO-SUCH-CODE')).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    const third = await scan('item.scan (second order)', 'SKU-2');
    expect(third).toMatchObject({ ok: true, value: { requiresSerial: true } });
    // A serial sorted before (in the history) is refused, a fresh one confirms: each reads where the serial was sorted.
    const { rows: sorted } = await explain.query<{ serial: string }>(`select serial from sort_box_item where client_id = $1 and serial is not null limit 1`, [tenant.clientId]);
    const confirmSerial = (label: string, serial: string) => run(label, 'item.confirm', { ...base, ...as, itemId: third.value.id, units: 1, barcode: null, serial });
    expect(await confirmSerial('item.confirm (serial sorted before)', sorted[0]!.serial)).toMatchObject({ ok: false, problem: { code: 'serial-already-sorted' } });
    expect(await confirmSerial('item.confirm (serial)', `SN-${warehouseId}`)).toMatchObject({ ok: true, value: { serial: `SN-${warehouseId}` } });
    const slot = third.value.crc as string;
    expect(await run('slot.release', 'slot.release', { ...base, ...manager, crc: slot, force: true })).toMatchObject({ ok: true });
    expect(await run('session.renew', 'session.renew', { ...base, ...as, token })).toMatchObject({ ok: true });
    expect(await run('session.expire', 'session.expire', { ...base, sessionId: connected.value.id })).toMatchObject({ ok: true, value: null });
    expect(await run('session.stop', 'session.stop', { ...base, ...as, token })).toMatchObject({ ok: true });
    return runner.measured;
  }

  it('measures the same buffers per statement before and after ANALYZE', async () => {
    await history();
    const { rows: stats } = await explain.query<{ n: string }>(`select count(*) as n from pg_stats where schemaname = 'public' and tablename in ('orders', 'order_item')`);
    expect(Number(stats[0]!.n)).toBe(0);
    // Each measured pass follows a pass that warms the caches (the first use of a table in a session
    // reads catalog pages, which would count as the statement's).
    await pass(3);
    const before = await pass(1);
    await explain.query('analyze');
    await pass(4);
    const after = await pass(2);

    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    const rows = [...before].map(([key, b]) => ({ key, before: b, after: after.get(key)! }));
    process.stdout.write(
      `\nbuffers per statement (custom / generic plan), before → after ANALYZE:\n${rows
        .map((r) => `  ${r.key.padEnd(70)} ${r.before.custom} / ${r.before.generic} → ${r.after.custom} / ${r.after.generic}`)
        .join('\n')}\n`,
    );
    // A command's write (apply-wall-changes) also counts the index page splits and the new heap pages its
    // inserts happen to meet, whatever the plan: it may differ by a few such events more (40 buffers).
    const close = (a: number, b: number, slack: number) => Math.abs(a - b) <= Math.max(slack, 0.2 * Math.max(a, b));
    const slackOf = (key: string) => (key.includes('apply-wall-changes') ? 40 : 10);
    const apart = rows.filter((r) => !close(r.before.custom, r.after.custom, slackOf(r.key)) || !close(r.before.generic, r.after.generic, slackOf(r.key)));
    expect(apart).toEqual([]);
    // The scan's candidate read walks the sku's open lines of one warehouse best order first and stops
    // at the fourth it keeps: a few dozen buffers, not the sku's 200 open lines in the warehouse, each
    // with its order and slot (over a thousand buffers), and not the client's.
    const candidates = rows.find((r) => r.key.endsWith('scan-candidates'))!;
    expect(Math.max(candidates.before.custom, candidates.before.generic, candidates.after.custom, candidates.after.generic)).toBeLessThan(150);
  });
});
