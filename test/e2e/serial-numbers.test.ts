import request from 'supertest';
import { EVENT_SCHEMAS } from '../../shared/events/event-schemas';
import { addSlots, addWall } from '../support/fixtures';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

/*
 * Serial numbers per unit (docs/api.md "Serial numbers"): a product marked requiresSerial is confirmed
 * one unit at a time with the unit's serial; a serial is refused when missing, malformed, sent for a
 * product without serials, or already sorted for the SKU in the company (409 naming the order and the
 * slot holding it, also when two walls confirm it at the same moment). The serial shows in the item,
 * the order, the confirmed event and the audit log.
 */

const PRODUCTS = [{ sku: 'SKU-S', requiresSerial: true }, { sku: 'SKU-A' }];

describe('serial numbers per unit', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox', 'audit'] });

  const confirm = (auth: string, itemId: number, body: object = {}, query = '') =>
    request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm${query}`).set('Authorization', auth).send(body);

  it('the product loader keeps requiresSerial (PUT, CSV import, listing)', async () => {
    const floor = await buildFloor(api);
    const auth = floor.tenant.auth;
    const put = await request(api.app).put('/api/v1/admin/products').set('Authorization', auth).send([{ sku: 'SER-1', title: 'Drill', requiresSerial: true }, { sku: 'SER-2', title: 'Box' }]);
    expect(put.status).toBe(200);
    const csv = 'sku,title,requiresSerial\nSER-3,Saw,true\n';
    const imported = await request(api.app).post('/api/v1/admin/products/import').set('Authorization', auth).set('Content-Type', 'text/csv').send(csv);
    expect(imported.status).toBe(200);
    const list = await request(api.app).get('/api/v1/admin/products?limit=100').set('Authorization', auth);
    expect(list.status).toBe(200);
    const flags = Object.fromEntries((list.body.items as { sku: string; requiresSerial: boolean }[]).filter((p) => p.sku.startsWith('SER-')).map((p) => [p.sku, p.requiresSerial]));
    expect(flags).toEqual({ 'SER-1': true, 'SER-2': false, 'SER-3': true });
  });

  it('refuses a missing, malformed, unexpected or several-unit serial; confirms one; refuses it again naming the order and slot', async () => {
    const floor = await buildFloor(api, { products: PRODUCTS, orders: [{ id: 1, items: [{ sku: 'SKU-S', qty: 3 }, { sku: 'SKU-A', qty: 1 }] }] });
    const sorter = await floor.sorter(1);
    const manager = await floor.manager();
    const { body: session } = await connect(api, floor, sorter.auth);
    const scanned = await scan(api, sorter.auth, session.token, 'SKU-S');
    expect(scanned.body).toMatchObject({ sku: 'SKU-S', requiresSerial: true, serial: null, position: 1 });
    const { id, crc } = scanned.body as { id: number; crc: string };

    const missing = await confirm(sorter.auth, id, { barcode: `A-${crc}` });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: 'serial-required' });
    expect(missing.body.detail).toContain('serial number');
    const blank = await confirm(sorter.auth, id, { serial: '   ' });
    expect(blank.body.code).toBe('serial-required');
    for (const bad of ['SN 1', 'x'.repeat(65), 'SNé1', `A-${crc}`, 'sku-s']) {
      const res = await confirm(sorter.auth, id, { serial: bad });
      expect({ bad, status: res.status, code: res.body.code }).toEqual({ bad, status: 422, code: 'serial-invalid' });
      expect(res.body.detail).toContain('1 to 64 printable characters');
    }
    const several = await confirm(sorter.auth, id, { serial: 'SN-0001' }, '?units=2');
    expect(several.body).toMatchObject({ status: 422, code: 'serial-single-unit' });
    const notAnumber = await confirm(sorter.auth, id, { serial: 17 });
    expect(notAnumber.status).toBe(400);
    // Nothing was confirmed by any of them.
    expect((await request(api.app).get(`/api/v1/sort-box-items/${id}`).set('Authorization', sorter.auth)).body).toMatchObject({ status: 'PendingConfirmation', serial: null });

    const ok = await confirm(sorter.auth, id, { barcode: `A-${crc}`, serial: ' SN-0001 ' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Confirmed', serial: 'SN-0001', requiresSerial: true });
    const read = await request(api.app).get(`/api/v1/sort-box-items/${id}`).set('Authorization', sorter.auth);
    expect(read.body).toMatchObject({ status: 'Confirmed', serial: 'SN-0001' });

    // The same serial again, for another unit of the SKU: 409 naming where it is.
    const again = await scan(api, sorter.auth, session.token, 'SKU-S');
    const taken = await confirm(sorter.auth, again.body.id, { serial: 'SN-0001' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'serial-already-sorted', serial: 'SN-0001', sku: 'SKU-S', orderId: 1, wallId: floor.wallId, crc, position: 1, sortBoxItemId: id });
    expect(taken.body.detail).toContain("'SN-0001'");
    expect(taken.body.detail).toContain('order 1, slot 1');
    // Letter case counts: another serial.
    expect((await confirm(sorter.auth, again.body.id, { serial: 'sn-0001' })).body).toMatchObject({ status: 'Confirmed', serial: 'sn-0001' });

    // A product without serials takes none; without one it confirms as always.
    const plain = await scan(api, sorter.auth, session.token, 'SKU-A');
    expect(plain.body).toMatchObject({ requiresSerial: false, serial: null });
    const unexpected = await confirm(sorter.auth, plain.body.id, { serial: 'SN-9' });
    expect(unexpected.body).toMatchObject({ status: 422, code: 'serial-not-required' });
    expect((await confirm(sorter.auth, plain.body.id)).body).toMatchObject({ status: 'Confirmed', serial: null });

    // The order lists its serials per line.
    const order = await request(api.app).get('/api/v1/orders/1').set('Authorization', sorter.auth);
    expect(order.body.items).toEqual([
      expect.objectContaining({ sku: 'SKU-S', sortedQty: 2, serials: ['SN-0001', 'sn-0001'] }),
      expect.objectContaining({ sku: 'SKU-A', sortedQty: 1, serials: [] }),
    ]);

    // The confirmed event carries it (its schema accepts it), and so does the audit log.
    const events = await api.runtime.orm.em.fork().execute<{ data: { item: { id: number; serial: string | null } } }[]>(
      `select data from outbox_event where wall_id = ? and type = 'sort-box-item.confirmed' order by id`,
      [floor.wallId],
    );
    expect(events.map((e) => e.data.item.serial)).toEqual(['SN-0001', 'sn-0001', null]);
    expect(EVENT_SCHEMAS['sort-box-item.confirmed'].parse(events[0]!.data).item.serial).toBe('SN-0001');
    const audit = await waitFor(
      async () => {
        const res = await request(api.app).get('/api/v1/audit-logs/sort-box-items?count=100').set('Authorization', manager.auth);
        type Rec = { type: string; sortBoxItemId: number; message: string; data: { item: { serial: string } } };
        const rec = (res.body as Rec[]).find((r) => r.type === 'sort-box-item.confirmed' && r.sortBoxItemId === id);
        return rec ?? null;
      },
      { what: 'the audit record of the confirm' },
    );
    expect(audit.message).toContain("(serial 'SN-0001')");
    expect(audit.data.item.serial).toBe('SN-0001');
  });

  it('two walls confirming the same serial at the same moment: one wins, the other is told where it went', async () => {
    const floor = await buildFloor(api, {
      products: PRODUCTS,
      orders: [1, 2, 3, 4].map((id) => ({ id, items: [{ sku: 'SKU-S', qty: 1 }] })),
    });
    const em = api.runtime.orm.em.fork();
    const other = await addWall(em, floor.tenant.clientId, { name: `Other ${floor.wallId}`, warehouseId: floor.warehouseId });
    await addSlots(em, floor.tenant.clientId, other.id, 4);
    const a = await floor.sorter(1);
    const b = await floor.sorter(2);
    const { body: sa } = await connect(api, floor, a.auth);
    const sb = await request(api.app).post(`/api/v1/walls/${other.id}/sessions`).set('Authorization', b.auth).send({});
    expect(sb.status).toBe(200);
    // Two rounds: the race is won by one confirm each time, whichever reaches the database first.
    for (const serial of ['SN-RACE-1', 'SN-RACE-2']) {
      const ia = await scan(api, a.auth, sa.token, 'SKU-S');
      const ib = await scan(api, b.auth, sb.body.token, 'SKU-S');
      expect([ia.status, ib.status]).toEqual([200, 200]);
      expect(ib.body.wallId).toBe(other.id);
      const [ra, rb] = await Promise.all([confirm(a.auth, ia.body.id, { serial }), confirm(b.auth, ib.body.id, { serial })]);
      const outcomes = [ra, rb].map((r) => r.status).sort();
      expect(outcomes).toEqual([200, 409]);
      const [won, lost] = ra.status === 200 ? [ra, rb] : [rb, ra];
      expect(won.body.serial).toBe(serial);
      expect(lost.body).toMatchObject({ code: 'serial-already-sorted', orderId: won.body.orderId, wallId: won.body.wallId, crc: won.body.crc, sortBoxItemId: won.body.id });
      // The loser's unit is still pending: it is confirmed with its own serial.
      const loserId = ra.status === 200 ? ib.body.id : ia.body.id;
      const loserAuth = ra.status === 200 ? b.auth : a.auth;
      expect((await confirm(loserAuth, loserId, { serial: `${serial}-B` })).body).toMatchObject({ status: 'Confirmed' });
    }
    const [{ n }] = await em.execute<{ n: string }[]>(`select count(*) as n from sort_box_item where client_id = ? and serial like 'SN-RACE-_'`, [floor.tenant.clientId]);
    expect(Number(n)).toBe(2);
  });
});
