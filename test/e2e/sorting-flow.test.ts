import request from 'supertest';
import { useTestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

describe('sorting workflow: connect, scan, confirm, complete, release', () => {
  const api = useTestApi({ workers: ['sorting'] });

  it('walks one order from scan to a released slot', async () => {
    const floor = await buildFloor(api, {
      orders: [
        { id: 10, items: [{ sku: 'SKU-A', qty: 2 }], orderDate: new Date(Date.now() - 3600_000) },
        { id: 11, items: [{ sku: 'SKU-A', qty: 1 }], priority: 'High' },
      ],
    });
    const s1 = await floor.sorter(1);
    const session = await connect(api, floor, s1.auth);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ wallId: floor.wallId, color: 'Red', colorHex: '#E53935', status: 'Connected' });
    const token = session.body.token as string;

    // Higher priority first: order 11; by UPC.
    const first = await scan(api, s1.auth, token, '012345678905');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ orderId: 11, sku: 'SKU-A', status: 'PendingConfirmation', crc: floor.slots[0].crc, position: 1, units: 1, requiredUnits: 1, remainingUnits: 0 });

    const wrong = await request(api.app)
      .patch(`/api/v1/sort-box-items/${first.body.id}/confirm`)
      .set('Authorization', s1.auth)
      .send({ barcode: `A-${floor.slots[1].crc}` });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('wrong-slot');
    const shipper = await request(api.app)
      .patch(`/api/v1/sort-box-items/${first.body.id}/confirm`)
      .set('Authorization', s1.auth)
      .send({ barcode: `B-${floor.slots[0].crc}` });
    expect(shipper.status).toBe(422);
    expect(shipper.body.code).toBe('shipper-barcode-not-accepted');

    const ok = await request(api.app)
      .patch(`/api/v1/sort-box-items/${first.body.id}/confirm`)
      .set('Authorization', s1.auth)
      .send({ barcode: `a-${floor.slots[0].crc.toLowerCase()}` });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Confirmed', confirmedUnits: 1 });
    const again = await request(api.app).patch(`/api/v1/sort-box-items/${first.body.id}/confirm`).set('Authorization', s1.auth);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('item-already-confirmed');

    // Order 11 is complete: its slot is Complete and the shipper releases it.
    const release = await request(api.app).post(`/api/v1/sort-boxes/B-${floor.slots[0].crc}/release`).set('Authorization', s1.auth);
    expect(release.status).toBe(200);
    expect(release.body).toMatchObject({ status: 'Empty', orderId: null, releasedOrderId: 11 });
    const releaseAgain = await request(api.app).post(`/api/v1/sort-boxes/B-${floor.slots[0].crc}/release`).set('Authorization', s1.auth);
    expect(releaseAgain.status).toBe(409);
    expect(releaseAgain.body.code).toBe('slot-not-complete');

    // Next SKU-A goes to order 10 in the lowest empty slot; confirming 2 units exceeds what's left.
    const second = await scan(api, s1.auth, token, 'sku-a');
    expect(second.body).toMatchObject({ orderId: 10, position: 1, requiredUnits: 2, remainingUnits: 1 });
    const tooMany = await request(api.app).patch(`/api/v1/sort-box-items/${second.body.id}/confirm?units=3`).set('Authorization', s1.auth);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.code).toBe('units-exceed-remaining');
    const two = await request(api.app).patch(`/api/v1/sort-box-items/${second.body.id}/confirm?units=2`).set('Authorization', s1.auth);
    expect(two.status).toBe(200);
    expect(two.body).toMatchObject({ confirmedUnits: 2, remainingUnits: 0 });

    const none = await scan(api, s1.auth, token, 'SKU-A');
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('no-fulfillable-order');
    const unknown = await scan(api, s1.auth, token, 'NOPE-123');
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('barcode-not-recognized');
    expect(unknown.body.detail).toContain("'NOPE-123'");

    const stop = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${token}`).set('Authorization', s1.auth);
    expect(stop.status).toBe(200);
    expect(stop.body).toMatchObject({ status: 'Ended', endReason: 'Stopped' });
    const stopAgain = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${token}`).set('Authorization', s1.auth);
    expect(stopAgain.status).toBe(409);
    expect(stopAgain.body.code).toBe('session-ended');
  });
});
