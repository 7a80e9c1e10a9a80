import { Client as PgClient } from 'pg';
import type { Query } from '../../shared/db/named-sql';
import { scanCandidates, scanCandidatesAnyWarehouse } from '../../workers/sorting/queries/wall-reads.queries';
import { TEST_PG_BASE, dropDatabase, templateDbName, withAdmin, workerDbName } from '../support/test-db';

/*
 * The scan's candidate read walks the open lines of a sku best order first (priority, then the oldest,
 * then the order id: order choice rules 2-4) from an index that carries the order's priority rank and
 * date on its lines (docs/architecture.md "Plans that cannot go quadratic"). The lines must follow
 * their order whoever writes it: a line inserted without them takes its order's, an order whose
 * priority, date or warehouse changes moves them on its lines.
 */
describe('the scan candidates, best order first', () => {
  const database = `${workerDbName(process.env.JEST_WORKER_ID ?? '1')}_candidates`;
  let pg: PgClient;
  const clientId = 1;

  beforeAll(async () => {
    await withAdmin(async (admin) => {
      await dropDatabase(admin, database);
      await admin.query(`create database "${database}" template "${templateDbName()}"`);
    });
    pg = new PgClient({ connectionString: `${TEST_PG_BASE}/${database}` });
    await pg.connect();
    await pg.query(`insert into client (id, name, team) values ($1, 'Candidates', 'candidates')`, [clientId]);
    await pg.query(`insert into warehouse (client_id, id, name) values ($1, 1, 'One'), ($1, 2, 'Two')`, [clientId]);
    // [id, warehouse, priority rank, day of November]: SKU-A in every order, SKU-B in order 1 only.
    const orders: [number, number, number, number][] = [
      [1, 1, 1, 5],
      [2, 1, 1, 3],
      [3, 1, 2, 9],
      [4, 2, 3, 9],
      [5, 1, 1, 3],
      [6, 2, 1, 1],
      [7, 1, 0, 1],
    ];
    for (const [id, wh, rank, day] of orders) {
      await pg.query(
        `insert into orders (client_id, id, warehouse_id, order_date, priority, priority_rank, ship_to)
         values ($1, $2, $3, make_timestamptz(2026, 11, $4, 0, 0, 0, 'UTC'), 'Normal', $5, '{}')`,
        [clientId, id, wh, day, rank],
      );
      // As the ORM and any other writer insert a line: without its order's columns.
      await pg.query(`insert into order_item (client_id, order_id, sku, qty) values ($1, $2, 'SKU-A', 2)`, [clientId, id]);
    }
    await pg.query(`insert into order_item (client_id, order_id, sku, qty) values ($1, 1, 'SKU-B', 1)`, [clientId]);
  });

  afterAll(async () => {
    await pg?.end();
    await withAdmin((admin) => dropDatabase(admin, database));
  });

  async function orderIds<P extends object>(q: Query<P, { order: Record<string, unknown> }>, params: P): Promise<number[]> {
    const { rows } = await pg.query<{ order: { id: number } }>({ text: q.statement.text, values: q.statement.values(params) });
    return rows.map((r) => r.order.id);
  }
  const ofWarehouse = (warehouseId: number, picklistId: number | null = null) => orderIds(scanCandidates, { clientId, sku: 'SKU-A', warehouseId, picklistId });
  const ofEvery = () => orderIds(scanCandidatesAnyWarehouse, { clientId, sku: 'SKU-A', picklistId: null });

  it('answers a warehouse its best four, and a wall of every warehouse the best four of all', async () => {
    expect(await ofWarehouse(1)).toEqual([3, 2, 5, 1]);
    expect(await ofWarehouse(2)).toEqual([4, 6]);
    expect(await ofEvery()).toEqual([4, 3, 6, 2]);
  });

  it('passes over orders in a slot, shipped, drop-ship, out of the picklist or with the line done', async () => {
    await pg.query('begin');
    try {
      const { rows } = await pg.query<{ id: number }>(`insert into wall (client_id, name, warehouse_id) values ($1, 'W', 1) returning id`, [clientId]);
      await pg.query(`insert into sort_box (client_id, wall_id, serial_number, crc, position, status, order_id, assigned_at) values ($1, $2, 'S1', 'AAAAAAAA', 1, 'Sorting', 3, now())`, [clientId, rows[0]!.id]);
      await pg.query(`update orders set status = 'Shipped', shipped_at = now() where client_id = $1 and id = 2`, [clientId]);
      await pg.query(`update orders set is_drop_ship = true where client_id = $1 and id = 5`, [clientId]);
      expect(await ofWarehouse(1)).toEqual([1, 7]);
      await pg.query(`update order_item set confirmed_qty = 1, pending_qty = 1 where client_id = $1 and order_id = 1 and sku = 'SKU-A'`, [clientId]);
      expect(await ofWarehouse(1)).toEqual([7]);
      await pg.query(`insert into picklist (client_id, id, status) values ($1, 9, 'Open')`, [clientId]);
      await pg.query(`insert into picklist_order (client_id, picklist_id, order_id) values ($1, 9, 6)`, [clientId]);
      expect(await ofWarehouse(2, 9)).toEqual([6]);
    } finally {
      await pg.query('rollback');
    }
  });

  it("moves an order's lines with its priority, date and warehouse, whoever changes them", async () => {
    await pg.query('begin');
    try {
      await pg.query(`update orders set priority_rank = 3 where client_id = $1 and id = 1`, [clientId]);
      await pg.query(`update orders set order_date = make_timestamptz(2026, 10, 1, 0, 0, 0, 'UTC') where client_id = $1 and id = 5`, [clientId]);
      expect(await ofWarehouse(1)).toEqual([1, 3, 5, 2]);
      await pg.query(`update orders set warehouse_id = 2 where client_id = $1 and id = 3`, [clientId]);
      expect(await ofWarehouse(1)).toEqual([1, 5, 2, 7]);
      expect(await ofWarehouse(2)).toEqual([4, 3, 6]);
      // Both lines of order 1 moved, the one of another sku too.
      const { rows } = await pg.query(`select sku, priority_rank from order_item where client_id = $1 and order_id = 1 order by sku`, [clientId]);
      expect(rows).toEqual([
        { sku: 'SKU-A', priority_rank: 3 },
        { sku: 'SKU-B', priority_rank: 3 },
      ]);
    } finally {
      await pg.query('rollback');
    }
  });
});
