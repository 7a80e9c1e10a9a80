import request from 'supertest';
import { SorterSession } from '../../shared/db/entities';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * Pending scans when a session ends (docs/api.md §6): no slot stays lit for nobody. A session replaced
 * by the same sorter's new connection hands its pending scans and its color to the new one; a session
 * stopped, disconnected by a Manager or expired cancels them (`sort-box-item.cancelled` with reason
 * `session-ended`), vacating a slot whose order has nothing else in it.
 */

describe('pending scans when a session ends', () => {
  const api = useTestApi({ workers: ['sorting', 'sweeper'], env: { SESSION_SWEEP_INTERVAL_MS: '200' } });

  const db = () => api.runtime.orm.em.fork();
  const events = async (floor: Floor, type: string) =>
    db().execute<{ data: { item: { id: number; status: string }; sortBox: { crc: string; status: string; orderId: number | null }; reason?: string } }[]>(
      'select data from outbox_event where client_id = ? and type = ? order by id',
      [floor.tenant.clientId, type],
    );
  const items = async (floor: Floor) =>
    db().execute<{ id: number; status: string; session_id: number; color: string }[]>('select id, status, session_id, color from sort_box_item where client_id = ? order by id', [floor.tenant.clientId]);
  const slots = async (floor: Floor) =>
    (await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth)).body.slots as { crc: string; status: string; orderId: number | null }[];
  const pendingQty = async (floor: Floor) =>
    Number((await db().execute<{ n: string }[]>('select coalesce(sum(pending_qty), 0) as n from order_item where client_id = ?', [floor.tenant.clientId]))[0]!.n);
  const confirm = (auth: string, id: number) => request(api.app).patch(`/api/v1/sort-box-items/${id}/confirm`).set('Authorization', auth).send({});

  /** Sorter 1 with two orders in two slots: order 1 with a confirmed and a pending unit, order 2 with a pending unit only. */
  async function twoSlots() {
    const floor = await buildFloor(api, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 3 }], orderDate: new Date(Date.now() - 86_400_000) },
        { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    const a = await floor.sorter(1);
    const { body: session } = await connect(api, floor, a.auth);
    const first = (await scan(api, a.auth, session.token, 'SKU-A')).body;
    expect((await confirm(a.auth, first.id)).status).toBe(200);
    const pendingA = (await scan(api, a.auth, session.token, 'SKU-A')).body;
    const pendingB = (await scan(api, a.auth, session.token, 'SKU-B')).body;
    expect([pendingA.position, pendingB.position]).toEqual([1, 2]);
    return { floor, a, session, pending: [pendingA.id as number, pendingB.id as number] };
  }

  /** What every way of ending the session must leave: both scans cancelled, slot 1 still sorting order 1, slot 2 empty. */
  async function expectCancelled(floor: Floor, pending: number[]) {
    const cancelled = await events(floor, 'sort-box-item.cancelled');
    expect(cancelled.map((e) => [e.data.item.id, e.data.item.status, e.data.reason])).toEqual([
      [pending[0], 'Cancelled', 'session-ended'],
      [pending[1], 'Cancelled', 'session-ended'],
    ]);
    // The second cancel left its slot with nothing of its order: the event shows the slot emptied.
    expect(cancelled[1]!.data.sortBox).toMatchObject({ status: 'Empty', orderId: null });
    expect((await items(floor)).map((i) => i.status)).toEqual(['Confirmed', 'Cancelled', 'Cancelled']);
    expect((await slots(floor)).slice(0, 2).map((s) => [s.status, s.orderId])).toEqual([
      ['Sorting', 1],
      ['Empty', null],
    ]);
    expect(await pendingQty(floor)).toBe(0);
  }

  it('Stopped: the sorter stops the session; its pending scans are cancelled', async () => {
    const { floor, a, session, pending } = await twoSlots();
    const stopped = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${session.token}`).set('Authorization', a.auth);
    expect(stopped.body).toMatchObject({ status: 'Ended', endReason: 'Stopped' });
    await expectCancelled(floor, pending);
  });

  it('Disconnected: a Manager ends the session; its pending scans are cancelled', async () => {
    const { floor, session, pending } = await twoSlots();
    const manager = await floor.manager();
    const ended = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${session.token}`).set('Authorization', manager.auth);
    expect(ended.body).toMatchObject({ status: 'Ended', endReason: 'Disconnected' });
    await expectCancelled(floor, pending);
  });

  it('Expired: the idle sweep ends the session; its pending scans are cancelled', async () => {
    const { floor, pending } = await twoSlots();
    await db().nativeUpdate(SorterSession, { wallId: floor.wallId }, { expiresAt: new Date(Date.now() - 1000) });
    await waitFor(async () => (await events(floor, 'sort-box-item.cancelled')).length === 2, { what: 'the expiry to cancel the pending scans' });
    expect((await db().findOneOrFail(SorterSession, { wallId: floor.wallId })).endReason).toBe('Expired');
    await expectCancelled(floor, pending);
  });

  it('Replaced: the new session keeps the color and the pending scans, which stay lit and can be confirmed', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const other = await floor.sorter(2);
    const a = await floor.sorter(1);
    const { body: otherSession } = await connect(api, floor, other.auth);
    const { body: first } = await connect(api, floor, a.auth);
    expect([otherSession.color, first.color]).toEqual(['Red', 'Blue']);
    const pending = (await scan(api, a.auth, first.token, 'SKU-A')).body;
    expect(pending).toMatchObject({ color: 'Blue', status: 'PendingConfirmation' });
    // Red becomes free: a new sorter would get it, the reconnecting one keeps Blue.
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${otherSession.token}`).set('Authorization', other.auth);

    const { body: second } = await connect(api, floor, a.auth);
    expect(second).toMatchObject({ color: 'Blue', status: 'Connected' });
    expect(await items(floor)).toEqual([{ id: pending.id, status: 'PendingConfirmation', session_id: second.id, color: 'Blue' }]);
    expect(await events(floor, 'sort-box-item.cancelled')).toEqual([]);
    expect((await slots(floor))[0]).toMatchObject({ status: 'Sorting', orderId: 1 });
    const confirmed = await confirm(a.auth, pending.id);
    expect(confirmed.body).toMatchObject({ status: 'Confirmed', color: 'Blue' });
    // And the old token is ended: its scans answer session-ended.
    expect((await scan(api, a.auth, first.token, 'SKU-A')).body.code).toBe('session-ended');
  });
});
