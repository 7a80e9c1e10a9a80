import { randomUUID } from 'node:crypto';
import type { CommandName, CommandPayloads } from '../../shared/commands/commands';
import { AppError } from '../../shared/errors/app-error';
import { emSql } from '../../shared/db/orm-sql';
import { endOrRenewSession, startSession } from '../../services/api/use-cases/sorting/sessions.use-case';
import { releaseSortBox } from '../../services/api/use-cases/sorting/release-sort-box.use-case';
import { attachSortBoxes, detachSortBox, updateWall } from '../../services/api/use-cases/walls/edit-wall.use-case';
import { addWarehouse } from '../support/fixtures';
import { buildInProcessFloor, useInProcessWalls, type FloorPerson, type InProcessFloor } from '../support/in-process-wall';

/*
 * The workflow's rules, each with its SQL and its machine, in one process (docs/architecture.md
 * "Tests"): the wall actors decide and write exactly as the sorting worker does, with no queue, no
 * Redis and no API in between. The same rules through HTTP and the queues are the end-to-end tests'
 * (test/e2e/sort-box-items.test.ts, sort-boxes.test.ts, walls.test.ts).
 */

describe('the workflow, decided in-process', () => {
  const walls = useInProcessWalls();
  let floor: InProcessFloor;
  let sorter: FloorPerson;
  let token: string;

  beforeEach(async () => {
    // Order 1 and order 2 need SKU-A (order 1 first: same date and priority, lower id); order 3 needs SKU-B.
    floor = await buildInProcessFloor(walls, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 1 }] },
        { id: 2, items: [{ sku: 'SKU-A', qty: 2 }] },
        { id: 3, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    sorter = await floor.sorter(1);
    // The API's own use-case (the wall's existence read, then the command) on the in-process client.
    token = (await startSession(walls.em(), walls.commands, sorter.auth, floor.wallId, null)).token;
  });

  type Job = { commandId?: string; redelivered?: boolean };
  const send = <N extends CommandName>(name: N, payload: CommandPayloads[N], job?: Job) => walls.commands.send(name, payload, job);
  const scan = (barcode = 'SKU-A', job?: Job, idempotencyKey: string | null = null) =>
    send('item.scan', { ...sorter.on, sessionToken: token, barcode, barcodeInputMethod: 'Scanned', idempotencyKey }, job);
  const confirm = (itemId: number, barcode: string | null, job?: Job) => send('item.confirm', { ...sorter.on, itemId, units: 1, barcode }, job);
  const applied = <T>(outcome: { ok: true; value: T } | { ok: false; problem: { code: string; detail: string } }): T => {
    if (!outcome.ok) throw new Error(`refused: ${outcome.problem.code}: ${outcome.problem.detail}`);
    return outcome.value;
  };

  // ---- what PostgreSQL holds
  const slot = async (crc: string) =>
    (await walls.rows<{ status: string; order_id: number | null }>('select status, order_id from sort_box where client_id = ? and crc = ?', [floor.clientId, crc]))[0];
  const line = async (orderId: number) =>
    (await walls.rows<{ qty: number; confirmed_qty: number; pending_qty: number }>('select qty, confirmed_qty, pending_qty from order_item where client_id = ? and order_id = ?', [floor.clientId, orderId]))[0];
  const itemStatus = async (id: number) => (await walls.rows<{ status: string }>('select status from sort_box_item where id = ?', [id]))[0]?.status;
  const itemCount = async () => Number((await walls.rows<{ n: string }>('select count(*) as n from sort_box_item where client_id = ?', [floor.clientId]))[0]!.n);
  const eventTypes = async () => (await walls.rows<{ type: string }>('select type from outbox_event where client_id = ? order by id', [floor.clientId])).map((e) => e.type);
  const refusals = async () =>
    (await walls.rows<{ data: { command: string; code: string; barcode: string | null } }>(`select data from outbox_event where client_id = ? and type = 'command.refused' order by id`, [floor.clientId])).map((e) => e.data);
  const version = async () => Number((await walls.rows<{ version: string }>('select version from wall where id = ?', [floor.wallId]))[0]!.version);

  it('a confirm into another slot is refused (wrong-slot) and changes nothing; into its own slot it completes the order', async () => {
    const item = applied(await scan());
    expect(item).toMatchObject({ orderId: 1, status: 'PendingConfirmation', remainingUnits: 0 });
    expect(await slot(item.crc)).toEqual({ status: 'Sorting', order_id: 1 });
    const other = floor.slots.find((s) => s.crc !== item.crc)!;

    expect(await confirm(item.id, `A-${other.crc}`)).toMatchObject({ ok: false, problem: { code: 'wrong-slot' } });
    expect(await itemStatus(item.id)).toBe('PendingConfirmation');
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 0, pending_qty: 1 });
    expect(await refusals()).toEqual([expect.objectContaining({ command: 'item.confirm', code: 'wrong-slot' })]);

    expect(applied(await confirm(item.id, `A-${item.crc}`))).toMatchObject({ id: item.id, status: 'Confirmed', confirmedUnits: 1 });
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 1, pending_qty: 0 });
    expect(await slot(item.crc)).toEqual({ status: 'Complete', order_id: 1 });
    expect(await eventTypes()).toEqual(['session.started', 'sort-box-item.created', 'command.refused', 'sort-box-item.confirmed', 'sort-box.completed']);
    // The item machine: a confirmed item is never confirmed again.
    expect(await confirm(item.id, null)).toMatchObject({ ok: false, problem: { code: 'item-already-confirmed' } });
  });

  it('a cancel gives the unit back to its line and empties the slot left with nothing of its order', async () => {
    const item = applied(await scan());
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 0, pending_qty: 1 });
    expect(applied(await send('item.cancel', { ...sorter.on, itemId: item.id }))).toMatchObject({ id: item.id, status: 'Cancelled' });
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 0, pending_qty: 0 });
    expect(await slot(item.crc)).toEqual({ status: 'Empty', order_id: null });
    expect(await send('item.cancel', { ...sorter.on, itemId: item.id })).toMatchObject({ ok: false, problem: { code: 'item-already-cancelled' } });
    // The unit is free again: the next scan takes it for the same order.
    expect(applied(await scan())).toMatchObject({ orderId: 1 });
  });

  it("a slot's confirmed units keep its order there, in the wall's memory and once loaded afresh: a cancel leaves it Sorting, a swap is refused", async () => {
    applied(await confirm(applied(await scan()).id, null)); // order 1 (one unit) is complete
    const first = applied(await scan());
    expect(first).toMatchObject({ orderId: 2 });
    applied(await confirm(first.id, `A-${first.crc}`));
    for (const fresh of [false, true]) {
      const pending = applied(await scan());
      expect(pending).toMatchObject({ orderId: 2, crc: first.crc });
      // Loaded afresh, the wall knows its confirmed units from the load alone.
      if (fresh) walls.takeOver();
      const empty = floor.slots.find((s) => s.crc !== first.crc && s.crc !== pending.crc && s.position > 2)!;
      expect(await send('item.swap', { ...sorter.on, itemId: pending.id, sessionToken: token, barcode: `A-${empty.crc}` })).toMatchObject({
        ok: false,
        problem: { code: 'slot-not-swappable', detail: expect.stringContaining('1 earlier unit of order 2') },
      });
      expect(applied(await send('item.cancel', { ...sorter.on, itemId: pending.id }))).toMatchObject({ status: 'Cancelled' });
      expect(await slot(first.crc)).toEqual({ status: 'Sorting', order_id: 2 });
      // A confirmed item is not held in memory: read, it is refused all the same.
      expect(await confirm(first.id, null)).toMatchObject({ ok: false, problem: { code: 'item-already-confirmed' } });
    }
  });

  it('a swap moves the order to an Empty slot; a slot holding another order refuses it', async () => {
    const item = applied(await scan('SKU-A'));
    const held = applied(await scan('SKU-B'));
    expect(held).toMatchObject({ orderId: 3 });
    const swap = (barcode: string) => send('item.swap', { ...sorter.on, itemId: item.id, sessionToken: token, barcode });

    expect(await swap(`A-${held.crc}`)).toMatchObject({ ok: false, problem: { code: 'slot-not-empty' } });
    expect(await slot(item.crc)).toEqual({ status: 'Sorting', order_id: 1 });

    const empty = floor.slots.find((s) => s.crc !== item.crc && s.crc !== held.crc)!;
    expect(applied(await swap(`A-${empty.crc}`))).toMatchObject({ id: item.id, orderId: 1, crc: empty.crc, position: empty.position });
    expect(await slot(item.crc)).toEqual({ status: 'Empty', order_id: null });
    expect(await slot(empty.crc)).toEqual({ status: 'Sorting', order_id: 1 });
    expect(await eventTypes()).toContain('sort-box-item.swapped');
  });

  it("a release (the API's use-case: the B- barcode read, the slot's wall found) frees a Complete slot; one still sorting needs a force", async () => {
    const item = applied(await scan('SKU-B'));
    const release = (barcode: string) => releaseSortBox(emSql(walls.em()), walls.commands, sorter.auth, barcode, false);

    // The slot machine: only a Complete slot is released without force. The refusal is the API's error.
    const early = await release(`B-${item.crc}`).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(AppError);
    expect(early).toMatchObject({ code: 'slot-not-complete' });
    expect(await slot(item.crc)).toEqual({ status: 'Sorting', order_id: 3 });

    applied(await confirm(item.id, `A-${item.crc}`));
    expect(await release(`B-${item.crc}`)).toMatchObject({ crc: item.crc, status: 'Empty', orderId: null, releasedOrderId: 3, cancelledItems: [] });
    expect(await slot(item.crc)).toEqual({ status: 'Empty', order_id: null });
    expect(await eventTypes()).toContain('sort-box.released');
    // The sorter's A- barcode is refused by the API before any command.
    await expect(release(`A-${item.crc}`)).rejects.toMatchObject({ code: 'sorter-barcode-not-accepted' });
  });

  it('the slot machine refuses to detach a slot that holds an order; an Empty one is detached', async () => {
    const manager = await floor.manager();
    const item = applied(await scan());
    const detach = (crc: string) => detachSortBox(walls.em(), walls.commands, manager.auth, floor.wallId, crc);

    await expect(detach(item.crc)).rejects.toMatchObject({ code: 'slot-not-empty', message: expect.stringMatching(/is Sorting with order 1; release it/) });
    expect(await slot(item.crc)).toEqual({ status: 'Sorting', order_id: 1 });

    const empty = floor.slots.find((s) => s.crc !== item.crc)!;
    expect(await detach(empty.crc)).toMatchObject({ crc: empty.crc, status: 'Empty' });
    expect(await slot(empty.crc)).toBeUndefined();
    expect(await refusals()).toEqual([expect.objectContaining({ command: 'slot.detach', code: 'slot-not-empty' })]);
  });

  it('a stopped session cancels its pending scans and frees its place under the sorter limit a wall edit set', async () => {
    const manager = await floor.manager();
    const other = await floor.sorter(2);
    expect(await updateWall(walls.em(), walls.commands, manager.auth, floor.wallId, { maxSorters: 1 })).toMatchObject({ maxSorters: 1 });
    await expect(startSession(walls.em(), walls.commands, other.auth, floor.wallId, null)).rejects.toMatchObject({ code: 'sorter-limit-reached' });

    const item = applied(await scan());
    expect(await endOrRenewSession(walls.em(), walls.commands, sorter.auth, 'session.stop', floor.wallId, token)).toMatchObject({ status: 'Ended', endReason: 'Stopped' });
    expect(await itemStatus(item.id)).toBe('Cancelled');
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 0, pending_qty: 0 });
    expect(await slot(item.crc)).toEqual({ status: 'Empty', order_id: null });
    expect(await startSession(walls.em(), walls.commands, other.auth, floor.wallId, null)).toMatchObject({ userId: other.userId, status: 'Connected' });
  });

  it("a new warehouse waits until every slot's machine lets its order go; attached slots join the wall after the last one", async () => {
    const manager = await floor.manager();
    await addWarehouse(walls.em(), floor.clientId, { id: 2, name: 'Second DC' });
    const item = applied(await scan());
    const edit = (warehouseId: number) => updateWall(walls.em(), walls.commands, manager.auth, floor.wallId, { warehouseId });

    await expect(edit(2)).rejects.toMatchObject({ code: 'slot-not-empty' });
    expect((await walls.rows<{ warehouse_id: number }>('select warehouse_id from wall where id = ?', [floor.wallId]))[0]).toEqual({ warehouse_id: 1 });

    const attached = await attachSortBoxes(walls.em(), walls.commands, manager.auth, floor.wallId, ['0xNEW-SLOT-1']);
    expect(attached).toEqual([expect.objectContaining({ serialNumber: '0xNEW-SLOT-1', position: floor.slots.length + 1, status: 'Empty' })]);
    expect(await slot(attached[0]!.crc)).toEqual({ status: 'Empty', order_id: null });

    applied(await send('item.cancel', { ...sorter.on, itemId: item.id }));
    expect(await edit(2)).toMatchObject({ warehouseId: 2 });
  });

  it("a wall whose version moved behind the actor's back is loaded again: its stale decision is never written", async () => {
    applied(await scan()); // the actor holds the wall, the session connected
    // Ended by hand: the write moves the wall's version by itself.
    await walls.rows(`update sorter_session set status = 'Ended', end_reason = 'Stopped', ended_at = now() where token = ?`, [token]);
    const v = await version();

    // Its memory says Connected and order 2 needs SKU-A: only a reload can answer session-ended.
    expect(await scan()).toMatchObject({ ok: false, problem: { code: 'session-ended' } });
    expect(await itemCount()).toBe(1);
    expect(await line(2)).toEqual({ qty: 2, confirmed_qty: 0, pending_qty: 0 });
    expect(await version()).toBe(v);

    // A version moved by a change that decides nothing: the command is decided again and written on it.
    token = applied(await send('session.start', { ...sorter.on, picklistId: null })).token;
    await walls.rows('update wall set version = version + 1 where id = ?', [floor.wallId]);
    const before = await version();
    expect(applied(await scan())).toMatchObject({ orderId: 2 });
    expect(await version()).toBe(before + 1);
  });

  it('a command id is applied once: replayed from memory, from its record after a take-over, and when delivered again unannounced', async () => {
    const commandId = randomUUID();
    const first = applied(await scan('SKU-A', { commandId }));
    expect(first).toMatchObject({ orderId: 1 });
    expect(await scan('SKU-A', { commandId })).toEqual({ ok: true, value: first });

    // A new holder with an empty memory, told the job was handed out before: it reads the earlier answer.
    walls.takeOver();
    expect(await scan('SKU-A', { commandId, redelivered: true })).toEqual({ ok: true, value: first });
    // Not told: it decides afresh (order 2 now), and its write meets the applied-command record, which answers.
    walls.takeOver();
    expect(await scan('SKU-A', { commandId })).toEqual({ ok: true, value: first });

    expect(await itemCount()).toBe(1);
    expect(await line(1)).toEqual({ qty: 1, confirmed_qty: 0, pending_qty: 1 });
    expect(await line(2)).toEqual({ qty: 2, confirmed_qty: 0, pending_qty: 0 });
    expect((await eventTypes()).filter((t) => t === 'sort-box-item.created')).toHaveLength(1);
    const records = await walls.rows<{ n: string }>('select count(*) as n from applied_command where command_id = ?', [commandId]);
    expect(records[0]!.n).toBe('1');

    // A refusal is recorded once per command id too.
    const refusedId = randomUUID();
    expect(await scan('NO-SUCH-CODE', { commandId: refusedId })).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    walls.takeOver();
    expect(await scan('NO-SUCH-CODE', { commandId: refusedId })).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    expect(await refusals()).toEqual([expect.objectContaining({ command: 'item.scan', code: 'barcode-not-recognized', barcode: 'NO-SUCH-CODE' })]);
  });

  it("a sorter's Idempotency-Key answers its first scan again, across commands and a take-over; another scan under it is refused", async () => {
    const first = applied(await scan('SKU-A', undefined, 'key-1'));
    expect(await scan('SKU-A', undefined, 'key-1')).toEqual({ ok: true, value: first });
    walls.takeOver();
    expect(await scan('SKU-A', undefined, 'key-1')).toEqual({ ok: true, value: first });
    expect(await scan('SKU-B', undefined, 'key-1')).toMatchObject({ ok: false, problem: { code: 'idempotency-key-reused' } });
    expect(await itemCount()).toBe(1);
  });

  it("a command's outbox events are written in its transaction, with its applied-command record, its rows and the wall's fence", async () => {
    const item = applied(await scan('SKU-B'));
    const commandId = randomUUID();
    applied(await confirm(item.id, `A-${item.crc}`, { commandId }));

    const tx = async (sql: string, params: unknown[]) => (await walls.rows<{ tx: string }>(sql, params)).map((r) => r.tx);
    const [record] = await tx('select xmin::text as tx from applied_command where command_id = ?', [commandId]);
    expect(record).toBeDefined();
    // No relay runs here, so no later transaction has touched the events (it would stamp them).
    const events = await walls.rows<{ type: string; tx: string }>(
      `select type, xmin::text as tx from outbox_event where client_id = ? and type in ('sort-box-item.confirmed', 'sort-box.completed') order by id`,
      [floor.clientId],
    );
    expect(events).toEqual([
      { type: 'sort-box-item.confirmed', tx: record },
      { type: 'sort-box.completed', tx: record },
    ]);
    expect(await tx('select xmin::text as tx from sort_box_item where id = ?', [item.id])).toEqual([record]);
    expect(await tx('select xmin::text as tx from sort_box where client_id = ? and crc = ?', [floor.clientId, item.crc])).toEqual([record]);
    expect(await tx('select xmin::text as tx from order_item where client_id = ? and order_id = 3', [floor.clientId])).toEqual([record]);
    expect(await tx('select xmin::text as tx from wall where id = ?', [floor.wallId])).toEqual([record]);
  });
});
