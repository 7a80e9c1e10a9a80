import request from 'supertest';
import { SortBoxItem } from '../../shared/db/entities';
import { useTestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

const PRODUCTS = [
  { sku: 'SKU-A', upc: '012345678905', aliases: ['apple'], shadowSkus: ['SKU-A-OLD'] },
  { sku: 'SKU-B' },
];

describe('sort box items (docs/api.md §7)', () => {
  const api = useTestApi({ workers: ['sorting'] });

  const patch = (path: string, auth: string) => request(api.app).patch(`/api/v1${path}`).set('Authorization', auth);

  it('resolves SKU, UPC, shadow SKU and alias; prefers the order already in a slot; skips drop-ship orders', async () => {
    const floor = await buildFloor(api, {
      products: PRODUCTS,
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 3 }], orderDate: new Date(Date.now() - 86400_000) },
        { id: 2, items: [{ sku: 'SKU-A', qty: 1 }], priority: 'Critical', isDropShip: true },
        { id: 3, items: [{ sku: 'SKU-A', qty: 1 }] },
      ],
    });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const byAlias = await scan(api, a.auth, s.token, 'APPLE');
    expect(byAlias.body).toMatchObject({ orderId: 1, position: 1, barcode: 'APPLE' });
    const byShadow = await scan(api, a.auth, s.token, 'sku-a-old');
    expect(byShadow.body).toMatchObject({ orderId: 1, position: 1, remainingUnits: 1 }); // same slot: the order is in it
    const byUpc = await scan(api, a.auth, s.token, '012345678905');
    expect(byUpc.body).toMatchObject({ orderId: 1, remainingUnits: 0 });
    const next = await scan(api, a.auth, s.token, 'SKU-A');
    expect(next.body).toMatchObject({ orderId: 3, position: 2 });
    const none = await scan(api, a.auth, s.token, 'SKU-A');
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('no-fulfillable-order');
    expect(none.body.detail).toContain("SKU 'SKU-A'");
  });

  it('answers no-empty-slot with the wall name and slot count when every slot holds an order', async () => {
    const floor = await buildFloor(api, {
      slots: 2,
      orders: [1, 2, 3].map((id) => ({ id, items: [{ sku: 'SKU-B', qty: 1 }] })),
    });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    expect((await scan(api, a.auth, s.token, 'SKU-B')).status).toBe(200);
    expect((await scan(api, a.auth, s.token, 'SKU-B')).status).toBe(200);
    const full = await scan(api, a.auth, s.token, 'SKU-B');
    expect(full.status).toBe(422);
    expect(full.body.code).toBe('no-empty-slot');
    expect(full.body.detail).toMatch(/All 2 slots of wall 'Wall .*' hold orders/);
  });

  it('returns the first answer to a retried scan with the same Idempotency-Key, and refuses the key for another scan', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 5 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const first = await scan(api, a.auth, s.token, 'SKU-A', { 'Idempotency-Key': 'scan-1' });
    const retry = await scan(api, a.auth, s.token, 'SKU-A', { 'Idempotency-Key': 'scan-1' });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    const count = await api.runtime.orm.em.fork().count(SortBoxItem, { clientId: floor.tenant.clientId });
    expect(count).toBe(1);
    const reused = await scan(api, a.auth, s.token, 'SKU-B', { 'Idempotency-Key': 'scan-1' });
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('idempotency-key-reused');
    // Keys belong to their sorter: another sorter's 'scan-1' is a new scan.
    const b = await floor.sorter(2);
    const { body: sb } = await connect(api, floor, b.auth);
    const theirs = await scan(api, b.auth, sb.token, 'SKU-A', { 'Idempotency-Key': 'scan-1' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(first.body.id);
  });

  it('cancels a pending scan once, gives its unit back and frees a slot left with nothing; PIN enforced server-side', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const item = await scan(api, a.auth, s.token, 'SKU-A');
    await request(api.app).put('/api/v1/admin/security/pin').set('Authorization', floor.tenant.auth).send({ pin: 'A1B2', enforcement: 'server' }).expect(200);
    const noPin = await patch(`/sort-box-items/${item.body.id}/cancel`, a.auth);
    expect(noPin.status).toBe(403);
    expect(noPin.body.code).toBe('pin-required');
    const badPin = await patch(`/sort-box-items/${item.body.id}/cancel`, a.auth).set('X-Pin', 'ZZZZ');
    expect(badPin.status).toBe(403);
    expect(badPin.body.code).toBe('pin-invalid');
    const other = await floor.sorter(2);
    const notYours = await patch(`/sort-box-items/${item.body.id}/cancel`, other.auth).set('X-Pin', 'A1B2');
    expect(notYours.status).toBe(403);
    expect(notYours.body.code).toBe('forbidden');
    const cancelled = await patch(`/sort-box-items/${item.body.id}/cancel`, a.auth).set('X-Pin', 'A1B2');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'Cancelled', remainingUnits: 1 });
    const again = await patch(`/sort-box-items/${item.body.id}/cancel`, a.auth).set('X-Pin', 'A1B2');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('item-already-cancelled');
    const confirmCancelled = await patch(`/sort-box-items/${item.body.id}/confirm`, a.auth);
    expect(confirmCancelled.status).toBe(409);
    expect(confirmCancelled.body.code).toBe('item-already-cancelled');
    const wall = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    expect(wall.body.slots[0]).toMatchObject({ status: 'Empty', orderId: null });
    // The unit is available again.
    const rescan = await scan(api, a.auth, s.token, 'SKU-A');
    expect(rescan.body).toMatchObject({ orderId: 1, position: 1 });
  });

  it('swaps the slot of a first product only, to an empty slot of the same wall', async () => {
    const floor = await buildFloor(api, { slots: 3, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const first = await scan(api, a.auth, s.token, 'SKU-A');
    expect(first.body.position).toBe(1);
    const shipper = await patch(`/sort-box-items/${first.body.id}/swap`, a.auth).send({ sessionToken: s.token, barcode: `B-${floor.slots[2].crc}` });
    expect(shipper.status).toBe(422);
    expect(shipper.body.code).toBe('shipper-barcode-not-accepted');
    const other = await scan(api, a.auth, s.token, 'SKU-B'); // order 2 takes slot 2
    const occupied = await patch(`/sort-box-items/${first.body.id}/swap`, a.auth).send({ sessionToken: s.token, barcode: `A-${floor.slots[1].crc}` });
    expect(occupied.status).toBe(409);
    expect(occupied.body.code).toBe('slot-not-empty');
    const swapped = await patch(`/sort-box-items/${first.body.id}/swap`, a.auth).send({ sessionToken: s.token, barcode: floor.slots[2].crc.toLowerCase() });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({ crc: floor.slots[2].crc, position: 3, orderId: 1 });
    // The second unit of order 1 follows it to slot 3; now the first is no longer the only product.
    const second = await scan(api, a.auth, s.token, 'SKU-A');
    expect(second.body.position).toBe(3);
    const notSwappable = await patch(`/sort-box-items/${second.body.id}/swap`, a.auth).send({ sessionToken: s.token, barcode: `A-${floor.slots[0].crc}` });
    expect(notSwappable.status).toBe(409);
    expect(notSwappable.body.code).toBe('slot-not-swappable');
    expect(other.status).toBe(200);
  });

  it('force-releases a slot with pending items (Manager only) and cancels them', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const a = await floor.sorter(1);
    const m = await floor.manager();
    const { body: s } = await connect(api, floor, a.auth);
    const item = await scan(api, a.auth, s.token, 'SKU-A');
    const notComplete = await request(api.app).post(`/api/v1/sort-boxes/B-${item.body.crc}/release`).set('Authorization', a.auth);
    expect(notComplete.status).toBe(409);
    expect(notComplete.body.code).toBe('slot-not-complete');
    const sorterForce = await request(api.app).post(`/api/v1/sort-boxes/B-${item.body.crc}/release?force=true`).set('Authorization', a.auth);
    expect(sorterForce.status).toBe(403);
    const forced = await request(api.app).post(`/api/v1/sort-boxes/B-${item.body.crc}/release?force=true`).set('Authorization', m.auth);
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ status: 'Empty', releasedOrderId: 1 });
    expect(forced.body.cancelledItems).toEqual([expect.objectContaining({ id: item.body.id, status: 'Cancelled' })]);
    const unknown = await request(api.app).post('/api/v1/sort-boxes/B-00000000/release').set('Authorization', m.auth);
    expect(unknown.status).toBe(404);
  });

  it('keeps tenants apart: another client cannot see, confirm or cancel an item', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const other = await buildFloor(api);
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const item = await scan(api, a.auth, s.token, 'SKU-A');
    for (const res of [
      await request(api.app).get(`/api/v1/sort-box-items/${item.body.id}`).set('Authorization', other.tenant.auth),
      await patch(`/sort-box-items/${item.body.id}/confirm`, other.tenant.auth),
      await patch(`/sort-box-items/${item.body.id}/cancel`, other.tenant.auth),
      await scan(api, other.tenant.auth, s.token, 'SKU-A'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
    }
    const bad = await patch(`/sort-box-items/${item.body.id}/confirm?units=0`, a.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'units' });
  });
});
