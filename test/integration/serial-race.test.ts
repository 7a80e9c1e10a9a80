import { randomUUID } from 'node:crypto';
import type { NamedStatement, SqlRunner } from '../../shared/db/named-sql';
import { SqlPool, WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { addSlots, addWall } from '../support/fixtures';
import { buildInProcessFloor, useInProcessWalls } from '../support/in-process-wall';

/*
 * One serial number confirmed on two walls at the same instant (docs/api.md §7 "Serial numbers"): both
 * walls' actors read that the serial is free before either writes (held here at that read until both
 * have made it), so only the unique index (client, product, serial) can keep the second unit out. The
 * losing write fails as a whole, its wall's actor decides the confirm again, reads the winner, and
 * answers 409 serial-already-sorted naming the winner's order and slot; its unit stays pending.
 */

describe('one serial number confirmed on two walls at once', () => {
  const walls = useInProcessWalls();

  it('lets one confirm stand and refuses the other with the order and slot holding the serial', async () => {
    const floor = await buildInProcessFloor(walls, {
      products: [{ sku: 'DRILL-18V', requiresSerial: true }],
      orders: [1, 2].map((id) => ({ id, items: [{ sku: 'DRILL-18V', qty: 1 }] })),
    });
    const other = await addWall(walls.em(), floor.clientId, { name: `Other ${floor.wallId}`, warehouseId: floor.warehouseId });
    await addSlots(walls.em(), floor.clientId, other.id, 2);
    const a = await floor.sorter(1);
    const b = await floor.sorter(2);
    const onOther = { ...b.on, wallId: other.id };
    const sa = await walls.commands.execute('session.start', { ...a.on, picklistId: null });
    const sb = await walls.commands.execute('session.start', { ...onOther, picklistId: null });
    const scanned = { barcode: 'DRILL-18V', barcodeInputMethod: 'Scanned' as const, idempotencyKey: null };
    const ia = await walls.commands.execute('item.scan', { ...a.on, sessionToken: sa.token, ...scanned });
    const ib = await walls.commands.execute('item.scan', { ...onOther, sessionToken: sb.token, ...scanned });
    expect([ia.wallId, ib.wallId]).toEqual([floor.wallId, other.id]);

    // Actors of their own, whose serial reads wait for each other: both see the serial free.
    const pool = new SqlPool(
      walls.config.DATABASE_URL,
      { max: 4, acquireTimeoutMs: walls.config.DATABASE_ACQUIRE_TIMEOUT_MS, applicationName: WALL_ACTOR_APPLICATION_NAME, prepared: walls.config.DATABASE_PREPARED_STATEMENTS },
      walls.log,
    );
    const reads: number[] = [];
    let bothRead!: () => void;
    const held = new Promise<void>((resolve) => (bothRead = resolve));
    const gated: SqlRunner = {
      async run<R>(statement: NamedStatement, values: unknown[]): Promise<R[]> {
        const rows = await pool.run<R>(statement, values);
        if (statement.name === 'serial-holder') {
          reads.push(rows.length);
          if (reads.length === 2) bothRead();
          if (reads.length <= 2) await held;
        }
        return rows;
      },
    };
    try {
      const handlers = sortingHandlers(new WallActors({ db: gated, log: walls.log, sessionIdleTimeoutMs: 3_600_000 }, walls.config.QUEUE_PARTITIONS));
      const confirm = (on: typeof a.on, itemId: number, jobId: number) =>
        handlers['item.confirm']({ ...on, itemId, units: 1, barcode: null, serial: 'SN-RACE' }, { commandId: randomUUID(), partition: 0, jobId });
      const [ra, rb] = await Promise.all([confirm(a.on, ia.id, 1), confirm(onOther, ib.id, 2)]);

      // Both read it free; the loser read again after its write failed, and found the winner.
      expect(reads).toEqual([0, 0, 1]);
      expect([ra.ok, rb.ok].sort()).toEqual([false, true]);
      const [won, lost] = ra.ok ? [ra, rb] : [rb, ra];
      if (!won.ok || lost.ok) throw new Error('one confirm must win');
      expect(won.value).toMatchObject({ status: 'Confirmed', serial: 'SN-RACE' });
      expect(lost.problem).toMatchObject({
        code: 'serial-already-sorted',
        serial: 'SN-RACE',
        orderId: won.value.orderId,
        wallId: won.value.wallId,
        crc: won.value.crc,
        position: won.value.position,
        sortBoxItemId: won.value.id,
      });
      expect(lost.problem.detail).toContain(`order ${won.value.orderId}, slot ${won.value.position}`);
      const rows = await walls.rows<{ status: string; serial: string | null }>(
        `select status, serial from sort_box_item where id in (?, ?) order by status`,
        [ia.id, ib.id],
      );
      expect(rows).toEqual([
        { status: 'Confirmed', serial: 'SN-RACE' },
        { status: 'PendingConfirmation', serial: null },
      ]);
    } finally {
      await pool.close();
    }
  });
});
