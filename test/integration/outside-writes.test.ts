import { Client } from 'pg';
import type { CommandName, CommandPayloads } from '../../shared/commands/commands';
import { WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';
import { upsertPicklists } from '../../services/api/use-cases/admin-data/upsert-picklists.use-case';
import { addSlots, addWall } from '../support/fixtures';
import { buildInProcessFloor, useInProcessWalls, type FloorPerson, type InProcessFloor } from '../support/in-process-wall';

/*
 * A write the wall's actor does not hear about is impossible (docs/architecture.md "Changes from
 * outside"): every write to a row the actor holds in memory moves the version of the walls holding it,
 * by the database's triggers, whoever writes. Each case here is plain SQL typed by hand on a connection
 * of its own, through no module of the service; the version of the wall concerned moves (and only of
 * that wall, where the row names one), and the actor's next command decides from the new state: the
 * answer its memory alone would have got wrong.
 */

describe('a write by hand to a row a wall actor holds', () => {
  const walls = useInProcessWalls();
  let floor: InProcessFloor;
  let sorter: FloorPerson;
  let token: string;
  /** Another wall of the same client, with two slots of its own. */
  let otherWall: number;

  /** One statement (or several, in one transaction) on a new plain connection, as psql would send them. */
  const byHand = async (statements: [string, unknown[]?][], applicationName = 'psql') => {
    const c = new Client({ connectionString: walls.config.DATABASE_URL, application_name: applicationName });
    await c.connect();
    try {
      if (statements.length > 1) await c.query('begin');
      for (const [sql, params] of statements) await c.query(sql, params ?? []);
      if (statements.length > 1) await c.query('commit');
    } finally {
      await c.end();
    }
  };
  const version = async (wallId: number) => Number((await walls.rows<{ version: string }>('select version from wall where id = ?', [wallId]))[0]!.version);
  const versions = async () => ({ wall: await version(floor.wallId), other: await version(otherWall) });

  const send = <N extends CommandName>(name: N, payload: CommandPayloads[N]) => walls.commands.send(name, payload);
  const applied = <T>(outcome: { ok: true; value: T } | { ok: false; problem: { code: string; detail: string } }): T => {
    if (!outcome.ok) throw new Error(`refused: ${outcome.problem.code}: ${outcome.problem.detail}`);
    return outcome.value;
  };
  const scan = (barcode = 'SKU-A', sessionToken = token) =>
    send('item.scan', { ...sorter.on, sessionToken, barcode, barcodeInputMethod: 'Scanned', idempotencyKey: null });

  /** Order 1 (oldest) in a slot with one unit pending out of its `qty1`; order 2 needs SKU-A too; order 3 SKU-B. */
  const start = async (qty1 = 2) => {
    floor = await buildInProcessFloor(walls, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: qty1 }], orderDate: new Date(Date.now() - 86_400_000) },
        { id: 2, items: [{ sku: 'SKU-A', qty: 2 }] },
        { id: 3, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    const other = await addWall(walls.em(), floor.clientId, { name: 'Other wall', warehouseId: floor.warehouseId, maxSorters: 6 });
    await addSlots(walls.em(), floor.clientId, other.id, 2);
    otherWall = other.id;
    sorter = await floor.sorter(1);
    token = applied(await send('session.start', { ...sorter.on, picklistId: null })).token;
    const item = applied(await scan());
    expect(item).toMatchObject({ orderId: 1, position: 1 });
    return item;
  };

  it("the actor's own writes move its wall's version once each; a connection named as the actor's moves none", async () => {
    await start();
    const before = await versions();
    applied(await scan());
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    // What the triggers leave out, by name: only the actors' pool may carry it.
    const touch: [string, unknown[]] = [`update sorter_session set last_activity_at = now() where token = $1`, [token]];
    await byHand([touch], WALL_ACTOR_APPLICATION_NAME);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    await byHand([touch]);
    expect(await versions()).toEqual({ wall: before.wall + 2, other: before.other });
  });

  it('slots: a slot deleted by hand is gone from the next answer', async () => {
    await start();
    const manager = await floor.manager();
    const before = await versions();
    await byHand([['delete from sort_box where wall_id = $1 and order_id is null and position = 4', [floor.wallId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    expect(applied(await send('wall.update', { ...manager.on, changes: { name: 'Renamed' } }))).toMatchObject({ name: 'Renamed', slotCount: 3 });
  });

  it('sessions: a session ended by hand takes no more scans', async () => {
    await start();
    const before = await versions();
    await byHand([[`update sorter_session set status = 'Ended', end_reason = 'Stopped', ended_at = now() where token = $1`, [token]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    expect(await scan()).toMatchObject({ ok: false, problem: { code: 'session-ended' } });
  });

  it('items: a pending item cancelled by hand cannot be confirmed; a deleted item no wall holds moves nothing', async () => {
    const item = await start();
    const before = await versions();
    await byHand([
      [`update sort_box_item set status = 'Cancelled', cancelled_at = now() where id = $1`, [item.id]],
      ['update order_item set pending_qty = pending_qty - 1 where client_id = $1 and order_id = 1', [floor.clientId]],
    ]);
    // Two tables, one transaction: the wall moved once, at the commit.
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    expect(await send('item.confirm', { ...sorter.on, itemId: item.id, units: 1, barcode: null })).toMatchObject({ ok: false });

    // Retention's kind of delete: a cancelled item is in no wall's memory.
    const moved = await versions();
    await byHand([['delete from sort_box_item where id = $1', [item.id]]]);
    expect(await versions()).toEqual(moved);
  });

  it("orders: an order shipped by hand takes no more scans; a change to an order in no slot moves no wall", async () => {
    await start();
    const before = await versions();
    await byHand([['update orders set priority = priority where client_id = $1 and id = 3', [floor.clientId]]]);
    expect(await versions()).toEqual(before);
    await byHand([[`update orders set status = 'Shipped', shipped_at = now() where client_id = $1 and id = 1`, [floor.clientId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    // Order 1 is still in slot 1 and still needs a unit, but it left with the truck.
    expect(applied(await scan())).toMatchObject({ orderId: 2, position: 2 });
  });

  it('order lines: a quantity raised by hand is taken by the next scan', async () => {
    // Order 1 needs one unit and has it pending: the memory says it needs nothing more.
    await start(1);
    const before = await versions();
    await byHand([['update order_item set qty = 2 where client_id = $1 and order_id = 1', [floor.clientId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    // Without the reload the scan would go to order 2 (read from the database) and be written.
    expect(applied(await scan())).toMatchObject({ orderId: 1, position: 1 });
  });

  it("picklists: an order taken out of a session's picklist by hand is no longer given its scans", async () => {
    floor = await buildInProcessFloor(walls, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 2 }], orderDate: new Date(Date.now() - 86_400_000) },
        { id: 2, items: [{ sku: 'SKU-A', qty: 2 }] },
      ],
    });
    otherWall = (await addWall(walls.em(), floor.clientId, { name: 'Other wall', warehouseId: floor.warehouseId, maxSorters: 6 })).id;
    await upsertPicklists(walls.em(), floor.clientId, [{ id: 70, status: 'Open', orderIds: [1, 2] }]);
    sorter = await floor.sorter(1);
    token = applied(await send('session.start', { ...sorter.on, picklistId: 70 })).token;
    expect(applied(await scan())).toMatchObject({ orderId: 1, position: 1 });

    const before = await versions();
    await byHand([['delete from picklist_order where client_id = $1 and picklist_id = 70 and order_id = 1', [floor.clientId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    expect(applied(await scan())).toMatchObject({ orderId: 2, position: 2 });
  });

  it('product codes: a barcode the wall remembered as unknown is recognized once added by hand; every wall of the client moves', async () => {
    await start();
    expect(await scan('NEW-LABEL-7')).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    const before = await versions();
    await byHand([
      [`insert into product_code (client_id, code, kind, product_id) select client_id, 'NEW-LABEL-7', 4, id from product where client_id = $1 and sku = 'SKU-A'`, [floor.clientId]],
    ]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other + 1 });
    expect(applied(await scan('NEW-LABEL-7'))).toMatchObject({ sku: 'SKU-A', orderId: 1 });
  });

  it("products: a sku renamed by hand moves every wall of the client; another change to a product moves none", async () => {
    await start();
    const before = await versions();
    await byHand([[`update product set title = 'Renamed' where client_id = $1 and sku = 'SKU-B'`, [floor.clientId]]]);
    expect(await versions()).toEqual(before);
    await byHand([[`update product set sku = 'SKU-B2' where client_id = $1 and sku = 'SKU-B'`, [floor.clientId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other + 1 });
  });

  it('the wall row: a wall deactivated by hand refuses the next scan', async () => {
    await start();
    const before = await versions();
    await byHand([['update wall set is_active = false where id = $1', [floor.wallId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other });
    expect(await scan()).toMatchObject({ ok: false, problem: { code: 'wall-inactive' } });
  });

  it('a TRUNCATE of a table the actor holds rows of moves every wall', async () => {
    await start();
    // Rolled back: the other tests' rows in this database stay. What would move at commit is recorded.
    const c = new Client({ connectionString: walls.config.DATABASE_URL, application_name: 'psql' });
    await c.connect();
    try {
      await c.query('begin');
      await c.query('truncate picklist_order');
      const { rows } = await c.query<{ walls: number[] }>('select walls from wall_version_move where xact = pg_current_xact_id()');
      expect(rows[0]!.walls).toEqual(expect.arrayContaining([floor.wallId, otherWall]));
      await c.query('rollback');
    } finally {
      await c.end();
    }
  });

  it('one statement over many rows of many walls moves each wall once', async () => {
    await start();
    const before = await versions();
    await byHand([['update sort_box set assigned_at = assigned_at where client_id = $1', [floor.clientId]]]);
    expect(await versions()).toEqual({ wall: before.wall + 1, other: before.other + 1 });
    expect(await walls.rows('select * from wall_version_move')).toEqual([]);

    // A transaction that moved the wall's version itself (as the actor's fence does) moves it no further:
    // an actor's write on a connection without its name still leaves its wall one version on.
    await byHand([
      [`update sorter_session set last_activity_at = now() where token = $1`, [token]],
      ['update wall set version = version + 1 where id = $1', [floor.wallId]],
    ]);
    expect(await versions()).toEqual({ wall: before.wall + 2, other: before.other + 1 });
  });

  it('two transactions writing the rows of two walls in opposite orders both commit: the walls move at commit, in id order', async () => {
    await start();
    const slotOf = async (wallId: number, position: number) =>
      (await walls.rows<{ id: number }>('select id from sort_box where wall_id = ? and position = ?', [wallId, position]))[0]!.id;
    const [a1, a2, b1, b2] = [await slotOf(floor.wallId, 3), await slotOf(floor.wallId, 4), await slotOf(otherWall, 1), await slotOf(otherWall, 2)];
    const before = await versions();
    const [t1, t2] = [new Client({ connectionString: walls.config.DATABASE_URL }), new Client({ connectionString: walls.config.DATABASE_URL })];
    await Promise.all([t1.connect(), t2.connect()]);
    try {
      const touch = (c: Client, slot: number) => c.query('update sort_box set assigned_at = assigned_at where id = $1', [slot]);
      await Promise.all([t1.query('begin'), t2.query('begin')]);
      await touch(t1, b1);
      await touch(t2, a1);
      // Had each statement locked its wall, each transaction would now wait for the other's wall: a deadlock.
      await Promise.all([touch(t1, a2), touch(t2, b2)]);
      await Promise.all([t1.query('commit'), t2.query('commit')]);
    } finally {
      await Promise.all([t1.end(), t2.end()]);
    }
    expect(await versions()).toEqual({ wall: before.wall + 2, other: before.other + 2 });
  });
});
