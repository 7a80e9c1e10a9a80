import request from 'supertest';
import { useTestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';
import { wallView } from '../../services/api/use-cases/walls/wall-view.queries';

/*
 * Pending scans are public state (docs/api.md §5): GET /walls/{id} lists them in `pendingItems` and
 * GET /walls/{id}/pending-items alone, so a hub or a sorter device restores the lit slots after a
 * reload, and a Manager finds a forgotten scan without digging for its id.
 */

describe('pending items of a wall', () => {
  const api = useTestApi({ workers: ['sorting'] });

  it('lists every scan waiting for confirmation, oldest first, with its slot, color and sorter name; confirmed and cancelled ones leave', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    const a = await floor.sorter(1);
    const b = await floor.sorter(2);
    const sa = (await connect(api, floor, a.auth)).body;
    const sb = (await connect(api, floor, b.auth)).body;
    // Two sorters pending in one slot (order 1), and one more in another slot (order 2).
    const first = (await scan(api, a.auth, sa.token, 'SKU-A')).body;
    const second = (await scan(api, b.auth, sb.token, 'SKU-A')).body;
    const third = (await scan(api, b.auth, sb.token, 'SKU-B')).body;
    expect(first.crc).toBe(second.crc);
    expect(third.crc).not.toBe(first.crc);

    const wall = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    expect(wall.status).toBe(200);
    expect(wall.body.pendingItems.map((i: { id: number }) => i.id)).toEqual([first.id, second.id, third.id]);
    expect(wall.body.pendingItems[0]).toEqual({
      ...first,
      // The order line's figures as they stand now: the second scan reserved one more unit.
      remainingUnits: 1,
      userName: 'sorter1 Tester',
    });
    expect(wall.body.pendingItems[1]).toMatchObject({ crc: first.crc, color: 'Blue', colorHex: '#1E88E5', userId: b.userId, userName: 'sorter2 Tester', status: 'PendingConfirmation' });
    // Sessions say who is connected by name too.
    expect(wall.body.sessions.map((s: { userName: string }) => s.userName)).toEqual(['sorter1 Tester', 'sorter2 Tester']);

    const list = await request(api.app).get(`/api/v1/walls/${floor.wallId}/pending-items`).set('Authorization', a.auth);
    expect(list.status).toBe(200);
    expect(list.body).toEqual(wall.body.pendingItems);

    await request(api.app).patch(`/api/v1/sort-box-items/${first.id}/confirm`).set('Authorization', a.auth).expect(200);
    await request(api.app).patch(`/api/v1/sort-box-items/${third.id}/cancel`).set('Authorization', b.auth).expect(200);
    const after = await request(api.app).get(`/api/v1/walls/${floor.wallId}/pending-items`).set('Authorization', a.auth);
    expect(after.body.map((i: { id: number }) => i.id)).toEqual([second.id]);
    expect(after.body[0].remainingUnits).toBe(1);
  });

  it("answers 404 for another client's wall and for a missing one, nothing for an empty wall", async () => {
    const floor = await buildFloor(api);
    const other = await buildFloor(api);
    for (const path of [`/walls/${other.wallId}`, `/walls/${other.wallId}/pending-items`, '/walls/2147483000/pending-items']) {
      const res = await request(api.app).get(`/api/v1${path}`).set('Authorization', floor.tenant.auth);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 'not-found' });
    }
    const empty = await request(api.app).get(`/api/v1/walls/${floor.wallId}/pending-items`).set('Authorization', floor.tenant.auth);
    expect(empty.body).toEqual([]);
  });

  it('reads the pending items through their partial index, not through the history of every scan', async () => {
    const floor = await buildFloor(api);
    const em = api.runtime.orm.em.fork();
    const text = wallView.statement.text.replace('$1', String(floor.wallId)).replace('$2', String(floor.tenant.clientId));
    const plan = (await em.getConnection().execute<{ 'QUERY PLAN': string }[]>(`explain (costs off) ${text}`)).map((r) => r['QUERY PLAN']).join('\n');
    expect(wallView.statement.params).toEqual(['wallId', 'clientId']);
    expect(plan).toContain('sort_box_item_pending_wall_idx');
    expect(plan).not.toMatch(/Seq Scan on sort_box_item/);
  });
});
