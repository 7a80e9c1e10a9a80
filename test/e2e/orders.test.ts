import request from 'supertest';
import { addOrders, addPicklist, addProducts, addSlots, addWall, addWarehouse, putOrderInSlot, SAMPLE_SHIP_TO } from '../support/fixtures';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

const DAY = 24 * 3600 * 1000;

describe('GET /orders/unshipped, /ids, /products', () => {
  const api = useTestApi();
  let a: Tenant;
  let b: Tenant;
  let wallId: number;
  let crc: string;
  const now = Date.now();
  const twoDaysAgo = new Date(now - 2 * DAY);

  beforeAll(async () => {
    a = await newTenant(api, 'Orders A');
    b = await newTenant(api, 'Orders B');
    const em = api.runtime.orm.em.fork();
    await addWarehouse(em, a.clientId, { id: 1 });
    await addWarehouse(em, a.clientId, { id: 2 });
    await addProducts(em, a.clientId, [
      { sku: 'SKU-A', title: 'Widget A' },
      { sku: 'SKU-B', title: 'Widget B' },
      { sku: 'SKU-C', title: 'Widget C' },
      { sku: 'SKU-D', title: 'Widget D' },
    ]);
    await addOrders(em, a.clientId, [
      { id: 101, warehouseId: 1, orderDate: twoDaysAgo, items: [{ sku: 'SKU-A', qty: 2, bins: ['A-01'] }, { sku: 'SKU-B', qty: 1, bins: ['B-02'] }] },
      { id: 102, warehouseId: 1, orderDate: new Date(now - 1 * DAY), priority: 'High', items: [{ sku: 'SKU-A', qty: 1, bins: ['A-07', 'A-01'] }] },
      { id: 103, warehouseId: 1, orderDate: new Date(now - 3 * DAY), priority: 'Critical', items: [{ sku: 'SKU-B', qty: 3, confirmedQty: 1, bins: ['B-02'] }] },
      // Same date as 101: the lower id comes first.
      { id: 104, warehouseId: 1, orderDate: twoDaysAgo, items: [{ sku: 'SKU-C', qty: 1, pendingQty: 1 }] },
      { id: 105, warehouseId: 1, orderDate: new Date(now - 5 * DAY), priority: 'Low', items: [{ sku: 'SKU-D', qty: 1, confirmedQty: 1 }] },
      { id: 106, warehouseId: 1, orderDate: new Date(now - 40 * DAY), items: [{ sku: 'SKU-A', qty: 1 }] },
      { id: 107, warehouseId: 1, orderDate: new Date(now), isDropShip: true, items: [{ sku: 'SKU-B', qty: 1 }] },
      { id: 108, warehouseId: 1, orderDate: new Date(now), status: 'Shipped', items: [{ sku: 'SKU-A', qty: 5 }] },
      { id: 109, warehouseId: 2, orderDate: new Date(now - 4 * DAY), items: [{ sku: 'UNKNOWN-SKU', qty: 2, bins: ['Z-9'] }] },
    ]);
    await addPicklist(em, a.clientId, { id: 1, status: 'Open', orderIds: [101, 103] });
    await addPicklist(em, a.clientId, { id: 2, status: 'Closed', orderIds: [104] });
    const wall = await addWall(em, a.clientId, { name: 'Jackson St', warehouseId: 1 });
    const slots = await addSlots(em, a.clientId, wall.id, 3);
    await putOrderInSlot(em, slots[1]!, 102);
    wallId = wall.id;
    crc = slots[1]!.crc;

    // Tenant B reuses the same ids, and puts its order 101 in a slot: none of it may leak into A's answers.
    await addWarehouse(em, b.clientId, { id: 1 });
    await addProducts(em, b.clientId, [{ sku: 'B-ONLY', title: 'Other tenant' }]);
    await addOrders(em, b.clientId, [
      { id: 101, warehouseId: 1, priority: 'Critical', shipTo: { ...SAMPLE_SHIP_TO, name: 'Other Tenant' }, items: [{ sku: 'B-ONLY', qty: 4 }] },
    ]);
    const bWall = await addWall(em, b.clientId);
    const bSlots = await addSlots(em, b.clientId, bWall.id, 1);
    await putOrderInSlot(em, bSlots[0]!, 101);
  });

  const list = (t: Tenant, query: Record<string, string | number>, path = '/api/v1/orders/unshipped') =>
    request(api.app).get(path).set('Authorization', t.auth).query(query);
  const ids = async (query: Record<string, string | number>) => {
    const res = await list(a, query);
    expect(res.status).toBe(200);
    return (res.body as { id: number }[]).map((o) => o.id);
  };

  it('lists by default: unshipped, recent, not drop-ship, something left to sort; most urgent, oldest, lowest id first', async () => {
    expect(await ids({ bins: 'false' })).toEqual([103, 102, 109, 101, 104]);
  });

  it('answers the full Order shape; bins=false leaves the bins key out', async () => {
    const res = await list(a, { bins: 'false' });
    const o101 = res.body.find((o: { id: number }) => o.id === 101);
    expect(o101).toEqual({
      id: 101,
      warehouseId: 1,
      orderDate: twoDaysAgo.toISOString(),
      priority: 'Normal',
      isDropShip: false,
      status: 'Unshipped',
      shipTo: SAMPLE_SHIP_TO,
      wallId: null,
      crc: null,
      sortStatus: 'NotStarted',
      items: [
        { sku: 'SKU-A', qty: 2, sortedQty: 0 },
        { sku: 'SKU-B', qty: 1, sortedQty: 0 },
      ],
    });
    for (const o of res.body) for (const item of o.items) expect(item).not.toHaveProperty('bins');
  });

  it('bins=true adds each line\'s bins', async () => {
    const res = await list(a, { bins: 'true' });
    expect(res.status).toBe(200);
    const byId = new Map<number, { items: unknown[] }>(res.body.map((o: { id: number; items: unknown[] }) => [o.id, o]));
    expect(byId.get(101)!.items).toEqual([
      { sku: 'SKU-A', qty: 2, sortedQty: 0, bins: ['A-01'] },
      { sku: 'SKU-B', qty: 1, sortedQty: 0, bins: ['B-02'] },
    ]);
    expect(byId.get(104)!.items).toEqual([{ sku: 'SKU-C', qty: 1, sortedQty: 0, bins: [] }]);
  });

  it('shows the wall and crc of the slot holding an order, and the sort status of each order', async () => {
    const res = await list(a, { bins: 'false', empty: 'true' });
    const byId = new Map<number, Record<string, unknown>>(res.body.map((o: { id: number }) => [o.id, o]));
    expect(byId.get(102)).toMatchObject({ wallId, crc, sortStatus: 'InProgress' });
    expect(byId.get(103)).toMatchObject({ wallId: null, crc: null, sortStatus: 'InProgress', items: [{ sku: 'SKU-B', qty: 3, sortedQty: 1 }] });
    expect(byId.get(104)).toMatchObject({ sortStatus: 'InProgress' }); // a pending unit
    expect(byId.get(101)).toMatchObject({ sortStatus: 'NotStarted', wallId: null });
    expect(byId.get(105)).toMatchObject({ sortStatus: 'Sorted', items: [{ sku: 'SKU-D', qty: 1, sortedQty: 1 }] });
  });

  it('recent=false also lists orders older than RECENT_ORDER_DAYS', async () => {
    expect(api.deps.config.RECENT_ORDER_DAYS).toBe(30);
    expect(await ids({ bins: 'false', recent: 'false' })).toEqual([103, 102, 106, 109, 101, 104]);
    expect(await ids({ bins: 'false', recent: 'true' })).toEqual([103, 102, 109, 101, 104]);
  });

  it('empty=true also lists orders with nothing left to sort', async () => {
    expect(await ids({ bins: 'false', empty: 'true' })).toEqual([103, 102, 109, 101, 104, 105]);
  });

  it('allowDropShip=true also lists drop-ship orders', async () => {
    expect(await ids({ bins: 'false', allowDropShip: 'true' })).toEqual([103, 102, 109, 101, 104, 107]);
  });

  it('priority filters by priority', async () => {
    expect(await ids({ bins: 'false', priority: 'Normal' })).toEqual([109, 101, 104]);
    expect(await ids({ bins: 'false', priority: 'Critical' })).toEqual([103]);
    expect(await ids({ bins: 'false', priority: 'Low', empty: 'true' })).toEqual([105]);
  });

  it('workflow=PicklistSort keeps only orders of an Open picklist; FreeSort keeps all', async () => {
    expect(await ids({ bins: 'false', workflow: 'PicklistSort' })).toEqual([103, 101]);
    expect(await ids({ bins: 'false', workflow: 'FreeSort' })).toEqual([103, 102, 109, 101, 104]);
  });

  it('warehouseId filters by warehouse; limit keeps the most urgent', async () => {
    expect(await ids({ bins: 'false', warehouseId: 2 })).toEqual([109]);
    expect(await ids({ bins: 'false', warehouseId: 1 })).toEqual([103, 102, 101, 104]);
    expect(await ids({ bins: 'false', limit: 2 })).toEqual([103, 102]);
  });

  it('never shows another client\'s orders', async () => {
    const all = await list(a, { bins: 'true', recent: 'false', empty: 'true', allowDropShip: 'true' });
    expect(all.body.map((o: { id: number }) => o.id)).toEqual([103, 102, 106, 109, 101, 104, 107, 105]);
    expect(JSON.stringify(all.body)).not.toMatch(/B-ONLY|Other Tenant/);
    const theirs = await list(b, { bins: 'false' });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toHaveLength(1);
    expect(theirs.body[0]).toMatchObject({ id: 101, priority: 'Critical', sortStatus: 'InProgress', items: [{ sku: 'B-ONLY', qty: 4, sortedQty: 0 }] });
    expect(theirs.body[0].wallId).not.toBe(wallId);
    const idsB = await list(b, { bins: 'false' }, '/api/v1/orders/unshipped/ids');
    expect(idsB.body).toEqual([101]);
    const productsB = await list(b, { bins: 'false' }, '/api/v1/orders/unshipped/products');
    expect(productsB.body).toEqual([{ sku: 'B-ONLY', title: 'Other tenant', unitsToSort: 4, orders: 1 }]);
  });

  it('refuses a missing or malformed bins, a bad priority, workflow, warehouseId or limit with 400', async () => {
    for (const path of ['/api/v1/orders/unshipped', '/api/v1/orders/unshipped/ids', '/api/v1/orders/unshipped/products']) {
      const missing = await list(a, {}, path);
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'validation-failed', errors: [{ path: 'bins', in: 'query' }] });
      expect(missing.body.detail).toMatch(/bins/);
    }
    const cases: [Record<string, string | number>, string][] = [
      [{ bins: 'maybe' }, 'bins'],
      [{ bins: 'false', priority: 'Urgent' }, 'priority'],
      [{ bins: 'false', recent: 'yes please' }, 'recent'],
      [{ bins: 'false', workflow: 'Chaos' }, 'workflow'],
      [{ bins: 'false', warehouseId: 'abc' }, 'warehouseId'],
      [{ bins: 'false', limit: 0 }, 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await list(a, query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([field]);
    }
  });

  it('answers 401 without a token', async () => {
    const res = await request(api.app).get('/api/v1/orders/unshipped').query({ bins: 'false' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  describe('/orders/unshipped/ids', () => {
    it('lists the same ids as the listing, with the same filters and order', async () => {
      const queries: Record<string, string | number>[] = [
        { bins: 'false' },
        { bins: 'true', recent: 'false', empty: 'true', allowDropShip: 'true' },
        { bins: 'false', workflow: 'PicklistSort' },
        { bins: 'false', priority: 'Normal', warehouseId: 1 },
        { bins: 'false', limit: 3 },
      ];
      for (const q of queries) {
        const res = await list(a, q, '/api/v1/orders/unshipped/ids');
        expect(res.status).toBe(200);
        expect(res.body).toEqual(await ids(q));
      }
      expect((await list(a, { bins: 'false' }, '/api/v1/orders/unshipped/ids')).body).toEqual([103, 102, 109, 101, 104]);
    });
  });

  describe('/orders/unshipped/products', () => {
    const products = (query: Record<string, string | number>) => list(a, query, '/api/v1/orders/unshipped/products');

    it('sums the units left to sort per sku over the matching orders, most units first', async () => {
      const res = await products({ bins: 'false' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { sku: 'SKU-A', title: 'Widget A', unitsToSort: 3, orders: 2 },
        { sku: 'SKU-B', title: 'Widget B', unitsToSort: 3, orders: 2 },
        { sku: 'UNKNOWN-SKU', title: null, unitsToSort: 2, orders: 1 },
        { sku: 'SKU-C', title: 'Widget C', unitsToSort: 1, orders: 1 },
      ]);
    });

    it('bins=true adds the distinct bins of the lines still to sort', async () => {
      const res = await products({ bins: 'true' });
      expect(res.body.map((p: { sku: string; bins: string[] }) => [p.sku, p.bins])).toEqual([
        ['SKU-A', ['A-01', 'A-07']],
        ['SKU-B', ['B-02']],
        ['UNKNOWN-SKU', ['Z-9']],
        ['SKU-C', []],
      ]);
    });

    it('applies the order filters', async () => {
      expect((await products({ bins: 'false', recent: 'false' })).body[0]).toEqual({ sku: 'SKU-A', title: 'Widget A', unitsToSort: 4, orders: 3 });
      expect((await products({ bins: 'false', allowDropShip: 'true' })).body[0]).toEqual({ sku: 'SKU-B', title: 'Widget B', unitsToSort: 4, orders: 3 });
      expect((await products({ bins: 'false', priority: 'High' })).body).toEqual([{ sku: 'SKU-A', title: 'Widget A', unitsToSort: 1, orders: 1 }]);
      expect((await products({ bins: 'false', warehouseId: 2 })).body).toEqual([{ sku: 'UNKNOWN-SKU', title: null, unitsToSort: 2, orders: 1 }]);
      expect((await products({ bins: 'false', workflow: 'PicklistSort' })).body).toEqual([
        { sku: 'SKU-B', title: 'Widget B', unitsToSort: 3, orders: 2 },
        { sku: 'SKU-A', title: 'Widget A', unitsToSort: 2, orders: 1 },
      ]);
    });

    it('empty=true also lists skus with nothing left to sort', async () => {
      const without = await products({ bins: 'false' });
      expect(without.body.map((p: { sku: string }) => p.sku)).not.toContain('SKU-D');
      const withEmpty = await products({ bins: 'false', empty: 'true' });
      expect(withEmpty.body.at(-1)).toEqual({ sku: 'SKU-D', title: 'Widget D', unitsToSort: 0, orders: 0 });
    });
  });

  describe('GET /orders/{id}', () => {
    const get = (t: Tenant, id: number | string, query: Record<string, string> = {}) =>
      request(api.app).get(`/api/v1/orders/${id}`).set('Authorization', t.auth).query(query);

    it('answers the listing\'s record of the order, each line with its pending units beside the sorted ones', async () => {
      const listed = (await list(a, { bins: 'true', recent: 'false', empty: 'true', allowDropShip: 'true' })).body as { id: number; items: object[] }[];
      expect(listed.length).toBeGreaterThan(5);
      for (const o of listed) {
        const res = await get(a, o.id, { bins: 'true' });
        expect(res.status).toBe(200);
        const { items, ...rest } = res.body;
        expect({ ...rest, items: items.map(({ pendingQty: _p, serials: _s, ...line }: { pendingQty: number; serials: string[] }) => line) }).toEqual(o);
        expect(items.every((l: { serials: string[] }) => Array.isArray(l.serials) && l.serials.length === 0)).toBe(true);
      }
      expect((await get(a, 104)).body.items).toEqual([{ sku: 'SKU-C', qty: 1, sortedQty: 0, pendingQty: 1, serials: [] }]);
      expect((await get(a, 103)).body).toMatchObject({ sortStatus: 'InProgress', items: [{ sku: 'SKU-B', qty: 3, sortedQty: 1, pendingQty: 0 }] });
    });

    it('names the slot the order is in, and answers an order in any status', async () => {
      expect((await get(a, 102)).body).toMatchObject({ id: 102, wallId, crc, sortStatus: 'InProgress', priority: 'High' });
      const shipped = await get(a, 108);
      expect(shipped.status).toBe(200);
      expect(shipped.body).toMatchObject({ id: 108, status: 'Shipped', wallId: null, crc: null, items: [{ sku: 'SKU-A', qty: 5, sortedQty: 0, pendingQty: 0 }] });
      expect(shipped.body.items[0]).not.toHaveProperty('bins');
    });

    it('answers 404 for an unknown order or another client\'s, 400 for a malformed id, 401 without a token', async () => {
      const unknown = await get(a, 999);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not-found');
      expect((await get(b, 102)).status).toBe(404);
      const theirs = await get(b, 101);
      expect(theirs.body).toMatchObject({ id: 101, priority: 'Critical', items: [{ sku: 'B-ONLY', qty: 4 }] });
      expect(JSON.stringify(theirs.body)).not.toMatch(/SKU-A/);
      for (const bad of ['abc', '0', '1.5', '99999999999']) expect((await get(a, bad)).status).toBe(400);
      expect((await request(api.app).get('/api/v1/orders/101')).status).toBe(401);
    });
  });
});
