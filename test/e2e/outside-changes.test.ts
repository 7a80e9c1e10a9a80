import request from 'supertest';
import { useTestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * The wall's actor decides from the state it holds in memory (docs/architecture.md "The wall actor").
 * Changes made outside its queue (order uploads and ships, product and picklist uploads) move the
 * version of the walls they touch, and the next command of such a wall decides from the new state;
 * wall edits are commands of the wall themselves. Each case below is one the memory would answer
 * wrongly had it not reloaded.
 */

const SHIP_TO = { name: 'Jane Doe', street1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' };

describe('changes from outside the command queue reach the wall actor', () => {
  const api = useTestApi({ workers: ['sorting'] });

  const version = async (wallId: number) =>
    Number((await api.runtime.orm.em.fork().execute<{ version: string }[]>('select version from wall where id = ?', [wallId]))[0]!.version);
  const admin = (floor: Floor, method: 'put' | 'post', path: string, body?: object) =>
    request(api.app)[method](`/api/v1${path}`).set('Authorization', floor.tenant.auth).send(body);
  const order = (id: number, qty: number) => ({ id, warehouseId: 1, orderDate: '2026-11-01', shipTo: SHIP_TO, items: [{ sku: 'SKU-A', qty }] });

  it('an upload that raises the quantity of an order in a slot: the next confirm may take the new units', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const item = await scan(api, a.auth, s.token, 'SKU-A');
    expect(item.body).toMatchObject({ orderId: 1, requiredUnits: 1, remainingUnits: 0 });

    const before = await version(floor.wallId);
    const upload = await admin(floor, 'put', '/admin/orders', [order(1, 3)]);
    expect(upload.status).toBe(200);
    expect(await version(floor.wallId)).toBeGreaterThan(before);

    const confirmed = await request(api.app).patch(`/api/v1/sort-box-items/${item.body.id}/confirm?units=3`).set('Authorization', a.auth).send({});
    expect({ status: confirmed.status, code: confirmed.body.code }).toEqual({ status: 200, code: undefined });
    expect(confirmed.body).toMatchObject({ status: 'Confirmed', confirmedUnits: 3, requiredUnits: 3, remainingUnits: 0 });
    // Every unit of the reloaded order is confirmed: its slot completes.
    const wall = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    expect(wall.body.slots[0]).toMatchObject({ status: 'Complete', orderId: 1 });
  });

  it('a shipped order in a slot takes no more scans', async () => {
    const floor = await buildFloor(api, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 2 }], orderDate: new Date(Date.now() - 86_400_000) },
        { id: 2, items: [{ sku: 'SKU-A', qty: 2 }] },
      ],
    });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    expect((await scan(api, a.auth, s.token, 'SKU-A')).body).toMatchObject({ orderId: 1, position: 1 });
    expect((await admin(floor, 'post', '/admin/orders/1/ship')).status).toBe(200);
    // Order 1 is still in slot 1 and still needs a unit, but it left with the truck.
    expect((await scan(api, a.auth, s.token, 'SKU-A')).body).toMatchObject({ orderId: 2, position: 2 });
  });

  it('a product upload: a barcode the wall did not know (and remembered as unknown) is recognized at once', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const unknown = await scan(api, a.auth, s.token, 'NEW-LABEL-7');
    expect(unknown.body.code).toBe('barcode-not-recognized');
    const upload = await admin(floor, 'put', '/admin/products', [{ sku: 'SKU-A', title: 'Apple', upc: '012345678905', aliases: ['new-label-7'] }]);
    expect(upload.status).toBe(200);
    expect((await scan(api, a.auth, s.token, 'NEW-LABEL-7')).body).toMatchObject({ status: 'PendingConfirmation', sku: 'SKU-A', orderId: 1 });
  });

  it("a picklist upload: a session sorting a picklist may take an order the wall holds once it joins the picklist", async () => {
    const floor = await buildFloor(api, {
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 2 }], orderDate: new Date(Date.now() - 86_400_000) },
        { id: 2, items: [{ sku: 'SKU-A', qty: 1 }] },
      ],
    });
    expect((await admin(floor, 'put', '/admin/picklists', [{ id: 70, status: 'Open', orderIds: [2] }])).status).toBe(200);
    // Order 1 enters slot 1 by a session without a picklist.
    const b = await floor.sorter(2);
    const { body: free } = await connect(api, floor, b.auth);
    expect((await scan(api, b.auth, free.token, 'SKU-A')).body).toMatchObject({ orderId: 1, position: 1 });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth, { picklistId: 70 });
    expect((await scan(api, a.auth, s.token, 'SKU-A')).body).toMatchObject({ orderId: 2, position: 2 });
    expect((await admin(floor, 'put', '/admin/picklists', [{ id: 70, status: 'Open', orderIds: [1, 2] }])).status).toBe(200);
    expect((await scan(api, a.auth, s.token, 'SKU-A')).body).toMatchObject({ orderId: 1, position: 1 });
  });

  it('a wall edit is a command of the wall: deactivated, it refuses the next scan; a new warehouse waits for empty slots', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const a = await floor.sorter(1);
    const manager = await floor.manager();
    const { body: s } = await connect(api, floor, a.auth);
    expect((await scan(api, a.auth, s.token, 'SKU-A')).status).toBe(200);
    const patch = (body: object) => request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', manager.auth).send(body);
    const moved = await patch({ warehouseId: null });
    expect({ status: moved.status, code: moved.body.code }).toEqual({ status: 409, code: 'slot-not-empty' });
    expect(moved.body.detail).toContain(`${floor.slots[0]!.crc} (order 1)`);
    expect((await patch({ isActive: false })).body).toMatchObject({ isActive: false, slotCount: 4, connectedSorters: 1 });
    expect((await scan(api, a.auth, s.token, 'SKU-A')).body.code).toBe('wall-inactive');
  });
});
