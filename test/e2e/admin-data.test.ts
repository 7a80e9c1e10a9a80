import request from 'supertest';
import {
  Order,
  OrderItem,
  Picklist,
  PicklistOrder,
  Product,
  ProductCode,
  SortBox,
  SortBoxItem,
  SorterSession,
  Warehouse,
} from '../../shared/db/entities';
import { PRODUCT_CODE_KINDS } from '../../shared/db/entities/product.entity';
import { addWall } from '../support/fixtures';
import { newTenant, signedInEmployee, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

describe('admin data loading', () => {
  const api = useTestApi();

  const em = () => api.runtime.orm.em.fork();
  const put = (t: Tenant | string, path: string, body: unknown) =>
    request(api.app)
      .put(`/api/v1/admin/${path}`)
      .set('Authorization', typeof t === 'string' ? t : t.auth)
      .send(body as object);
  const paths = (res: request.Response) => (res.body.errors as { path: string }[]).map((e) => e.path);


  const shipTo = { name: 'Ann Buyer', street1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  const order = (id: number, items: { sku: string; qty: number; bin?: string }[], over: Record<string, unknown> = {}) => ({
    id,
    warehouseId: 1,
    orderDate: '2026-03-01T10:00:00Z',
    shipTo,
    items,
    ...over,
  });

  /** A tenant with warehouse 1 and products A-1, B-2, C-3. */
  async function loadedTenant(): Promise<Tenant> {
    const t = await newTenant(api);
    expect((await put(t, 'warehouses', [{ id: 1, name: 'Main' }])).status).toBe(200);
    const products = await put(t, 'products', [
      { sku: 'A-1', title: 'Apple' },
      { sku: 'B-2', title: 'Banana' },
      { sku: 'C-3', title: 'Cherry' },
    ]);
    expect(products.status).toBe(200);
    return t;
  }

  async function lines(clientId: number, orderId: number) {
    return (await em().find(OrderItem, { clientId, orderId }, { orderBy: { sku: 'asc' } })).map((l) => ({
      sku: l.sku,
      qty: l.qty,
      confirmedQty: l.confirmedQty,
      pendingQty: l.pendingQty,
    }));
  }

  describe('PUT /admin/warehouses', () => {
    it('creates, then updates by id, and answers counts and the stored rows', async () => {
      const t = await newTenant(api);
      const first = await put(t, 'warehouses', [
        { id: 1, name: 'Main', address: '1 Dock Rd', latitude: 41.88, longitude: -87.63, timeZone: 'America/Chicago' },
        { id: 2, name: 'Overflow' },
      ]);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        upserted: 2,
        created: 2,
        updated: 0,
        items: [
          { id: 1, name: 'Main', address: '1 Dock Rd', latitude: 41.88, longitude: -87.63, timeZone: 'America/Chicago' },
          { id: 2, name: 'Overflow', address: null, latitude: null, longitude: null, timeZone: null },
        ],
      });
      const second = await put(t, 'warehouses', [{ id: 2, name: 'Overflow B' }, { id: 3, name: 'Third' }]);
      expect(second.body).toMatchObject({ upserted: 2, created: 1, updated: 1 });
      const stored = await em().find(Warehouse, { clientId: t.clientId }, { orderBy: { id: 'asc' } });
      expect(stored.map((w) => [w.id, w.name])).toEqual([
        [1, 'Main'],
        [2, 'Overflow B'],
        [3, 'Third'],
      ]);
    });

    it('is all-or-nothing: a duplicate id or a bad field refuses the batch with per-row errors', async () => {
      const t = await newTenant(api);
      await put(t, 'warehouses', [{ id: 1, name: 'Main' }]);
      const dup = await put(t, 'warehouses', [{ id: 1, name: 'Renamed' }, { id: 5, name: 'New' }, { id: 1, name: 'Again' }]);
      expect(dup.status).toBe(400);
      expect(dup.body.code).toBe('validation-failed');
      expect(paths(dup)).toEqual(['[2].id']);
      const bad = await put(t, 'warehouses', [{ id: 1, name: 'Renamed' }, { id: 6, name: 'x', latitude: 91 }, { id: 0, name: '' }]);
      expect(bad.status).toBe(400);
      expect(paths(bad).sort()).toEqual(['[1].latitude', '[2].id', '[2].name']);
      const stored = await em().find(Warehouse, { clientId: t.clientId });
      expect(stored.map((w) => [w.id, w.name])).toEqual([[1, 'Main']]);
    });

    it('keeps tenants apart: the same id in two companies is two warehouses', async () => {
      const a = await newTenant(api);
      const b = await newTenant(api);
      await put(a, 'warehouses', [{ id: 7, name: 'A seven' }]);
      await put(b, 'warehouses', [{ id: 7, name: 'B seven' }]);
      expect((await em().findOneOrFail(Warehouse, { clientId: a.clientId, id: 7 })).name).toBe('A seven');
      expect((await em().findOneOrFail(Warehouse, { clientId: b.clientId, id: 7 })).name).toBe('B seven');
    });

    it('answers 400 for a body that is not an array, or too many rows', async () => {
      const t = await newTenant(api);
      expect((await put(t, 'warehouses', { id: 1, name: 'x' })).status).toBe(400);
      const tooMany = await put(t, 'warehouses', Array.from({ length: 10_001 }, (_, i) => ({ id: i + 1, name: 'w' })));
      expect(tooMany.status).toBe(400);
      expect(await em().count(Warehouse, { clientId: t.clientId })).toBe(0);
    });
  });

  describe('PUT /admin/products', () => {
    it('upserts by SKU and keeps product_code in step (upper-cased, by kind), replacing codes on re-upsert', async () => {
      const t = await newTenant(api);
      const widget = {
        sku: 'sku-1',
        title: 'Widget',
        upc: '012345678905',
        aliases: ['wid', 'WIDGET'],
        shadowSkus: ['old-sku-1'],
        requiresTransparencyCode: true,
        kitComponents: [{ sku: 'part-1', qty: 2 }],
        sitePrice: 19.99,
        stopLossPrice: 12.5,
        channelPrices: [{ channelId: 3, price: 21, useDefaultSitePrice: false }],
      };
      const res = await put(t, 'products', [widget]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ upserted: 1, created: 1, updated: 0 });
      // Answered as sent, every field, with its id.
      expect(res.body.items[0]).toEqual({ id: expect.any(Number), requiresSerial: false, ...widget });
      const id = res.body.items[0].id as number;
      const stored = await em().findOneOrFail(Product, { id });
      expect(stored).toMatchObject({ clientId: t.clientId, sitePrice: 19.99, requiresTransparencyCode: true, shadowSkus: ['old-sku-1'] });
      const codes = async () =>
        (await em().find(ProductCode, { productId: id })).map((c) => `${c.kind}:${c.code}`).sort();
      expect(await codes()).toEqual(['1:SKU-1', '2:012345678905', '3:OLD-SKU-1', '4:WID', '4:WIDGET']);

      const again = await put(t, 'products', [{ sku: 'sku-1', title: 'Widget v2', aliases: ['w2'] }]);
      expect(again.body).toMatchObject({ upserted: 1, created: 0, updated: 1, items: [{ id, title: 'Widget v2', upc: null, sitePrice: null }] });
      expect(await codes()).toEqual(['1:SKU-1', '4:W2']);
      expect(await em().count(Product, { clientId: t.clientId })).toBe(1);
    });

    it('refuses SKUs that differ only in case (in the batch or from a stored product), duplicate channels and self-kits', async () => {
      const t = await newTenant(api);
      await put(t, 'products', [{ sku: 'Abc', title: 'Stored' }]);
      const res = await put(t, 'products', [
        { sku: 'NEW-1', title: 'fine' },
        { sku: 'ABC', title: 'case clash with stored' },
        { sku: 'dup', title: 'first' },
        { sku: 'DUP', title: 'case clash in batch' },
        { sku: 'K', title: 'kit', kitComponents: [{ sku: 'k', qty: 1 }] },
        { sku: 'P', title: 'prices', channelPrices: [{ channelId: 1, price: 1, useDefaultSitePrice: true }, { channelId: 1, price: 2, useDefaultSitePrice: false }] },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(paths(res).sort()).toEqual(['[1].sku', '[3].sku', '[4].kitComponents[0].sku', '[5].channelPrices[1].channelId']);
      // Nothing written, not even the good row.
      expect((await em().find(Product, { clientId: t.clientId })).map((p) => p.sku)).toEqual(['Abc']);
    });

    it('loads 10,000 products in one call', async () => {
      const t = await newTenant(api);
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ sku: `BULK-${i}`, title: `Bulk ${i}`, upc: `9${String(i).padStart(11, '0')}` }));
      const res = await put(t, 'products', rows);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ upserted: 10_000, created: 10_000 });
      expect(await em().count(Product, { clientId: t.clientId })).toBe(10_000);
      expect(await em().count(ProductCode, { clientId: t.clientId, kind: PRODUCT_CODE_KINDS.upc })).toBe(10_000);
    }, 60_000);
  });

  describe('PUT /admin/orders', () => {
    it('creates orders with priorityRank, canonical SKUs and bins, and answers them', async () => {
      const t = await loadedTenant();
      const res = await put(t, 'orders', [
        order(1001, [{ sku: 'a-1', qty: 2, bin: 'R1-S2' }, { sku: 'B-2', qty: 1 }], { priority: 'Critical' }),
        order(1002, [{ sku: 'C-3', qty: 3 }], { orderDate: '2026-03-02', isDropShip: true }),
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ upserted: 2, created: 2, updated: 0 });
      expect(res.body.items[0]).toEqual({
        id: 1001,
        warehouseId: 1,
        orderDate: '2026-03-01T10:00:00.000Z',
        priority: 'Critical',
        isDropShip: false,
        status: 'Unshipped',
        shippedAt: null,
        shipTo: { ...shipTo, street2: null },
        items: [
          { sku: 'A-1', qty: 2, sortedQty: 0, pendingQty: 0, bins: ['R1-S2'] },
          { sku: 'B-2', qty: 1, sortedQty: 0, pendingQty: 0, bins: [] },
        ],
      });
      expect(res.body.items[1]).toMatchObject({ orderDate: '2026-03-02T00:00:00.000Z', priority: 'Normal', isDropShip: true });
      const o1 = await em().findOneOrFail(Order, { clientId: t.clientId, id: 1001 });
      expect(o1).toMatchObject({ priority: 'Critical', priorityRank: 3, status: 'Unshipped', warehouseId: 1 });
      const o2 = await em().findOneOrFail(Order, { clientId: t.clientId, id: 1002 });
      expect(o2.priorityRank).toBe(1);
      expect(await lines(t.clientId, 1001)).toEqual([
        { sku: 'A-1', qty: 2, confirmedQty: 0, pendingQty: 0 },
        { sku: 'B-2', qty: 1, confirmedQty: 0, pendingQty: 0 },
      ]);
    });

    it('refuses unknown warehouses, unknown or repeated SKUs and repeated ids, changing nothing', async () => {
      const t = await loadedTenant();
      const other = await loadedTenant();
      await put(other, 'warehouses', [{ id: 9, name: 'Other company only' }]);
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }])]);
      const res = await put(t, 'orders', [
        order(1, [{ sku: 'A-1', qty: 5 }]),
        order(2, [{ sku: 'A-1', qty: 1 }], { warehouseId: 9 }),
        order(3, [{ sku: 'A-1', qty: 1 }, { sku: 'a-1', qty: 2 }]),
        order(4, [{ sku: 'NOPE', qty: 1 }]),
        order(2, [{ sku: 'B-2', qty: 1 }]),
      ]);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(paths(res).sort()).toEqual(['[1].warehouseId', '[2].items[1].sku', '[3].items[0].sku', '[4].id']);
      expect(res.body.detail).toMatch(/nothing was changed/);
      expect(await em().count(Order, { clientId: t.clientId })).toBe(1);
      expect(await lines(t.clientId, 1)).toEqual([{ sku: 'A-1', qty: 1, confirmedQty: 0, pendingQty: 0 }]);
    });

    it('answers 400 with [i].path for invalid fields', async () => {
      const t = await loadedTenant();
      const res = await put(t, 'orders', [
        order(1, [{ sku: 'A-1', qty: 0 }]),
        order(2, [], { priority: 'Urgent', orderDate: 'yesterday' }),
        { id: 3, warehouseId: 1, orderDate: '2026-03-01T00:00:00Z', items: [{ sku: 'A-1', qty: 1 }], shipTo: { name: 'x' } },
      ]);
      expect(res.status).toBe(400);
      expect(paths(res)).toEqual(
        expect.arrayContaining(['[0].items[0].qty', '[1].items', '[1].priority', '[1].orderDate', '[2].shipTo.street1']),
      );
      expect(await em().count(Order, { clientId: t.clientId })).toBe(0);
    });

    it('re-upsert replaces lines but keeps sorting progress', async () => {
      const t = await loadedTenant();
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 5 }, { sku: 'B-2', qty: 2 }, { sku: 'C-3', qty: 1 }])]);
      // Simulate sorting: 2 units of A-1 confirmed, 1 pending.
      const e = em();
      const a = await e.findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'A-1' });
      a.confirmedQty = 2;
      a.pendingQty = 1;
      await e.flush();

      const res = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 3, bin: 'X' }, { sku: 'C-3', qty: 4 }, { sku: 'B-2', qty: 1 }], { priority: 'High' })]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ created: 0, updated: 1 });
      expect(res.body.items[0].items[0]).toEqual({ sku: 'A-1', qty: 3, sortedQty: 2, pendingQty: 1, bins: ['X'] });
      expect(await lines(t.clientId, 1)).toEqual([
        { sku: 'A-1', qty: 3, confirmedQty: 2, pendingQty: 1 },
        { sku: 'B-2', qty: 1, confirmedQty: 0, pendingQty: 0 },
        { sku: 'C-3', qty: 4, confirmedQty: 0, pendingQty: 0 },
      ]);
      expect((await em().findOneOrFail(Order, { clientId: t.clientId, id: 1 })).priorityRank).toBe(2);
      // Every line carries its order's rank and date (the scan walks the open lines in that order): the
      // new line as the upload wrote it, the kept ones moved with their order.
      const ranks = await em().getConnection().execute<{ sku: string; priority_rank: number; same_date: boolean }[]>(
        `select l.sku, l.priority_rank, l.order_date = o.order_date as same_date from order_item l join orders o on o.client_id = l.client_id and o.id = l.order_id
          where l.client_id = ? and l.order_id = 1 order by l.sku`,
        [t.clientId],
      );
      expect(ranks).toEqual(['A-1', 'B-2', 'C-3'].map((sku) => ({ sku, priority_rank: 2, same_date: true })));

      // A line without progress may go; the line id of a kept SKU stays the same.
      const kept = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 3 }])]);
      expect(kept.status).toBe(200);
      expect(await lines(t.clientId, 1)).toEqual([{ sku: 'A-1', qty: 3, confirmedQty: 2, pendingQty: 1 }]);
      expect((await em().findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'A-1' })).id).toBe(a.id);
    });

    it('refuses a qty below sorted + pending units, removing a line with progress, and moving an order being sorted', async () => {
      const t = await loadedTenant();
      await put(t, 'warehouses', [{ id: 2, name: 'Second' }]);
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 5 }, { sku: 'B-2', qty: 2 }]), order(2, [{ sku: 'A-1', qty: 1 }])]);
      const e = em();
      const a = await e.findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'A-1' });
      a.confirmedQty = 2;
      a.pendingQty = 1;
      const b = await e.findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'B-2' });
      b.pendingQty = 1;
      await e.flush();

      const below = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 2 }, { sku: 'B-2', qty: 2 }]), order(2, [{ sku: 'A-1', qty: 9 }])]);
      expect(below.status).toBe(400);
      expect(paths(below)).toEqual(['[0].items[0].qty']);
      expect(below.body.errors[0].message).toMatch(/2 units of 'A-1' sorted and 1 awaiting/);

      const removed = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 5 }])]);
      expect(removed.status).toBe(400);
      expect(paths(removed)).toEqual(['[0].items']);
      expect(removed.body.errors[0].message).toMatch(/line 'B-2'/);

      const moved = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 5 }, { sku: 'B-2', qty: 2 }], { warehouseId: 2 })]);
      expect(moved.status).toBe(400);
      expect(paths(moved)).toEqual(['[0].warehouseId']);

      expect(await lines(t.clientId, 1)).toEqual([
        { sku: 'A-1', qty: 5, confirmedQty: 2, pendingQty: 1 },
        { sku: 'B-2', qty: 2, confirmedQty: 0, pendingQty: 1 },
      ]);
      expect(await lines(t.clientId, 2)).toEqual([{ sku: 'A-1', qty: 1, confirmedQty: 0, pendingQty: 0 }]);
      expect((await em().findOneOrFail(Order, { clientId: t.clientId, id: 1 })).warehouseId).toBe(1);
    });

    it('refuses removing a line with a (cancelled) scan history, which sort_box_item still points at', async () => {
      const t = await loadedTenant();
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }, { sku: 'B-2', qty: 1 }])]);
      const e = em();
      const line = await e.findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'B-2' });
      const product = await e.findOneOrFail(Product, { clientId: t.clientId, sku: 'B-2' });
      const wall = await addWall(e, t.clientId, { name: 'W' });
      const slot = e.create(SortBox, { clientId: t.clientId, wallId: wall.id, serialNumber: 'S1', crc: 'AAAAAAAA', position: 1, status: 'Sorting', orderId: 1, createdAt: new Date() });
      const session = e.create(SorterSession, { clientId: t.clientId, wallId: wall.id, userId: t.adminId, token: `tok-${uniqueSuffix()}`, color: 'Red', status: 'Ended', startedAt: new Date(), lastActivityAt: new Date(), expiresAt: new Date() });
      await e.flush();
      e.create(SortBoxItem, {
        clientId: t.clientId, wallId: wall.id, sortBoxId: slot.id, crc: slot.crc, orderId: 1, orderItemId: line.id, productId: product.id, sku: 'B-2',
        barcode: 'B-2', barcodeInputMethod: 'Scanned', userId: t.adminId, sessionId: session.id, color: 'Red', units: 1, confirmedUnits: 0,
        status: 'Cancelled', createdAt: new Date(), cancelledAt: new Date(),
      });
      await e.flush();
      const res = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }])]);
      expect(res.status).toBe(400);
      expect(paths(res)).toEqual(['[0].items']);
      expect(res.body.errors[0].message).toMatch(/scan history/);
      expect((await lines(t.clientId, 1)).map((l) => l.sku)).toEqual(['A-1', 'B-2']);
    });

    it('loads 10,000 orders in one call', async () => {
      const t = await loadedTenant();
      const rows = Array.from({ length: 10_000 }, (_, i) => order(i + 1, [{ sku: 'A-1', qty: 1 }, { sku: 'B-2', qty: 2, bin: `B${i}` }]));
      const res = await put(t, 'orders', rows);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ upserted: 10_000, created: 10_000 });
      expect(await em().count(OrderItem, { clientId: t.clientId })).toBe(20_000);
      const again = await put(t, 'orders', rows);
      expect(again.body).toMatchObject({ upserted: 10_000, created: 0, updated: 10_000 });
      expect(await em().count(OrderItem, { clientId: t.clientId })).toBe(20_000);
    }, 120_000);

    it('refuses any change to a shipped order', async () => {
      const t = await loadedTenant();
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }])]);
      expect((await request(api.app).post('/api/v1/admin/orders/1/ship').set('Authorization', t.auth)).status).toBe(200);
      const res = await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 2 }])]);
      expect(res.status).toBe(400);
      expect(paths(res)).toEqual(['[0].id']);
      expect(res.body.errors[0].message).toMatch(/shipped/);
      expect(await lines(t.clientId, 1)).toEqual([{ sku: 'A-1', qty: 1, confirmedQty: 0, pendingQty: 0 }]);
    });
  });

  describe('POST /admin/orders/{id}/ship', () => {
    it('marks the order shipped, idempotently; 404 for a missing or another company\'s order', async () => {
      const t = await loadedTenant();
      const other = await loadedTenant();
      await put(t, 'orders', [order(55, [{ sku: 'A-1', qty: 1 }])]);
      await put(other, 'orders', [order(66, [{ sku: 'A-1', qty: 1 }])]);
      const res = await request(api.app).post('/api/v1/admin/orders/55/ship').set('Authorization', t.auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 55, status: 'Shipped', shippedAt: expect.any(String), items: [{ sku: 'A-1', qty: 1 }] });
      const stored = await em().findOneOrFail(Order, { clientId: t.clientId, id: 55 });
      expect(stored.status).toBe('Shipped');
      expect(stored.shippedAt?.toISOString()).toBe(res.body.shippedAt);
      const again = await request(api.app).post('/api/v1/admin/orders/55/ship').set('Authorization', t.auth);
      expect(again.status).toBe(200);
      expect(again.body.shippedAt).toBe(res.body.shippedAt);

      const foreign = await request(api.app).post('/api/v1/admin/orders/66/ship').set('Authorization', t.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not-found');
      expect((await em().findOneOrFail(Order, { clientId: other.clientId, id: 66 })).status).toBe('Unshipped');
      const missing = await request(api.app).post('/api/v1/admin/orders/77/ship').set('Authorization', t.auth);
      expect(missing.status).toBe(404);
      const bad = await request(api.app).post('/api/v1/admin/orders/x/ship').set('Authorization', t.auth);
      expect(bad.status).toBe(400);
    });
  });

  describe('PUT /admin/picklists', () => {
    it('creates picklists and replaces their orders on re-upsert', async () => {
      const t = await loadedTenant();
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }]), order(2, [{ sku: 'B-2', qty: 1 }]), order(3, [{ sku: 'C-3', qty: 1 }])]);
      const res = await put(t, 'picklists', [
        { id: 10, status: 'Open', orderIds: [1, 2, 2] },
        { id: 11, status: 'Closed', orderIds: [] },
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        upserted: 2,
        created: 2,
        updated: 0,
        items: [
          { id: 10, status: 'Open', orderIds: [1, 2] },
          { id: 11, status: 'Closed', orderIds: [] },
        ],
      });
      const members = async (id: number) =>
        (await em().find(PicklistOrder, { clientId: t.clientId, picklistId: id }, { orderBy: { orderId: 'asc' } })).map((m) => m.orderId);
      expect(await members(10)).toEqual([1, 2]);

      const again = await put(t, 'picklists', [{ id: 10, status: 'Closed', orderIds: [3] }]);
      expect(again.body).toMatchObject({ upserted: 1, created: 0, updated: 1 });
      expect(await members(10)).toEqual([3]);
      expect((await em().findOneOrFail(Picklist, { clientId: t.clientId, id: 10 })).status).toBe('Closed');
    });

    it('refuses unknown (or another company\'s) order ids, bad statuses and repeated ids, changing nothing', async () => {
      const t = await loadedTenant();
      const other = await loadedTenant();
      await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }])]);
      await put(other, 'orders', [order(2, [{ sku: 'A-1', qty: 1 }])]);
      await put(t, 'picklists', [{ id: 10, status: 'Open', orderIds: [1] }]);
      const res = await put(t, 'picklists', [
        { id: 10, status: 'Closed', orderIds: [] },
        { id: 11, status: 'Open', orderIds: [1, 2] },
        { id: 10, status: 'Open', orderIds: [1] },
      ]);
      expect(res.status).toBe(400);
      expect(paths(res).sort()).toEqual(['[1].orderIds[1]', '[2].id']);
      const badStatus = await put(t, 'picklists', [{ id: 12, status: 'Pending', orderIds: [] }]);
      expect(badStatus.status).toBe(400);
      expect(paths(badStatus)).toEqual(['[0].status']);
      expect((await em().find(Picklist, { clientId: t.clientId })).map((p) => [p.id, p.status])).toEqual([[10, 'Open']]);
      expect(await em().count(PicklistOrder, { clientId: t.clientId, picklistId: 10 })).toBe(1);
    });
  });

  it('every /admin data operation answers 403 to a Sorter and 401 without a token', async () => {
    const t = await loadedTenant();
    const { auth: sorter } = await signedInEmployee(api, t, { roles: ['Sorter'] });
    for (const path of ['warehouses', 'products', 'orders', 'picklists']) {
      const res = await put(sorter, path, []);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      const anon = await request(api.app).put(`/api/v1/admin/${path}`).send([]);
      expect(anon.status).toBe(401);
    }
    await put(t, 'orders', [order(1, [{ sku: 'A-1', qty: 1 }])]);
    const ship = await request(api.app).post('/api/v1/admin/orders/1/ship').set('Authorization', sorter);
    expect(ship.status).toBe(403);
    expect((await em().findOneOrFail(Order, { clientId: t.clientId, id: 1 })).status).toBe('Unshipped');
  });

  it('an empty batch is a no-op 200', async () => {
    const t = await newTenant(api);
    const res = await put(t, 'orders', []);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ upserted: 0, created: 0, updated: 0, items: [] });
  });
});
