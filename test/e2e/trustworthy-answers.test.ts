import request from 'supertest';
import { OutboxEvent, SortBoxItem } from '../../shared/db/entities';
import { useTestApi } from '../support/test-api';
import { addSlots } from '../support/fixtures';
import { buildFloor, connect, scan } from '../support/sorting-floor';

// Answers a sorter and an integrator can act on: consistent figures, the right barcode, messages in
// words, one shape per record (docs/api.md §1 and §7).

describe('answers a sorter and an integrator can trust', () => {
  const api = useTestApi({ workers: ['sorting'] });
  const em = () => api.runtime.orm.em.fork();
  const confirm = (auth: string, id: number, query = '') => request(api.app).patch(`/api/v1/sort-box-items/${id}/confirm${query}`).set('Authorization', auth);

  it('a confirm of 2 units makes the item hold 2: answer, events and stored row agree', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const scanned = await scan(api, s.auth, token, 'SKU-A');
    expect(scanned.body).toMatchObject({ units: 1, confirmedUnits: 0 });

    const res = await confirm(s.auth, scanned.body.id, '?units=2');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Confirmed', units: 2, confirmedUnits: 2, requiredUnits: 3, remainingUnits: 1 });
    const row = await em().findOneOrFail(SortBoxItem, { id: scanned.body.id });
    expect({ units: row.units, confirmedUnits: row.confirmedUnits }).toEqual({ units: 2, confirmedUnits: 2 });
    const [event] = await em().find(OutboxEvent, { clientId: floor.tenant.clientId, type: 'sort-box-item.confirmed' });
    expect((event!.data as { item: { units: number; confirmedUnits: number } }).item).toMatchObject({ units: 2, confirmedUnits: 2 });
    const read = await request(api.app).get(`/api/v1/sort-box-items/${scanned.body.id}`).set('Authorization', s.auth);
    expect(read.body).toMatchObject({ units: 2, confirmedUnits: 2, remainingUnits: 1 });
  });

  it('release takes the B- code or the crc; the sorter\'s A- code is refused with 422 saying to scan the back', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    for (const sku of ['SKU-A', 'SKU-B']) {
      const item = await scan(api, s.auth, token, sku);
      expect((await confirm(s.auth, item.body.id)).status).toBe(200);
    }
    const [first, second] = floor.slots;
    const refused = await request(api.app).post(`/api/v1/sort-boxes/A-${first!.crc}/release`).set('Authorization', s.auth);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('sorter-barcode-not-accepted');
    expect(refused.body.detail).toContain(`back-side (B-) barcode B-${first!.crc}`);
    const lower = await request(api.app).post(`/api/v1/sort-boxes/a-${first!.crc.toLowerCase()}/release`).set('Authorization', s.auth);
    expect(lower.body.code).toBe('sorter-barcode-not-accepted');

    const byShipper = await request(api.app).post(`/api/v1/sort-boxes/B-${first!.crc}/release`).set('Authorization', s.auth);
    expect(byShipper.status).toBe(200);
    expect(byShipper.body).toMatchObject({ status: 'Empty', releasedOrderId: 1 });
    const byCrc = await request(api.app).post(`/api/v1/sort-boxes/${second!.crc}/release`).set('Authorization', s.auth);
    expect(byCrc.status).toBe(200);
    expect(byCrc.body).toMatchObject({ status: 'Empty', releasedOrderId: 2 });
  });

  it('says what is expected in words, not zod\'s defaults', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const item = await scan(api, s.auth, token, 'SKU-A');
    const nan = await confirm(s.auth, item.body.id, '?units=abc');
    expect(nan.status).toBe(400);
    expect(nan.body.detail).toBe("Query parameter 'units' must be a whole number from 1 to 100000.");
    expect(nan.body.errors).toEqual([{ path: 'units', message: 'must be a whole number from 1 to 100000', in: 'query' }]);
    const zero = await confirm(s.auth, item.body.id, '?units=0');
    expect(zero.body.detail).toBe("Query parameter 'units' must be at least 1.");

    const admin = floor.tenant.auth;
    const wall = await request(api.app).post('/api/v1/walls').set('Authorization', admin).send({ name: '', maxSorters: 9, workflow: 'Nope', isActive: 'yes' });
    expect(wall.status).toBe(400);
    const messages = Object.fromEntries((wall.body.errors as { path: string; message: string }[]).map((e) => [e.path, e.message]));
    expect(messages).toEqual({
      name: 'must not be empty',
      maxSorters: 'must be at most 6',
      workflow: 'must be one of: FreeSort, PicklistSort',
      isActive: 'must be true or false',
    });
    const missing = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).send({ barcode: 'SKU-A' });
    expect(missing.body.detail).toBe("Field 'sessionToken' is required: text of 1 to 200 characters.");
    for (const e of [...wall.body.errors, ...missing.body.errors] as { message: string }[]) {
      expect(e.message).not.toMatch(/expected|received|Invalid input|Too (small|big)/);
    }
  });

  it('a refused confirm says how many units were tried and how many the order still needs', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 7, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const item = await scan(api, s.auth, token, 'SKU-A');
    const res = await confirm(s.auth, item.body.id, '?units=5');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('units-exceed-remaining');
    expect(res.body.detail).toBe("Order 7 needs only 3 more units of SKU 'SKU-A' (other pending scans counted); you tried to confirm 5. Nothing was confirmed.");
  });

  it('no-fulfillable-order says whether no open order contains the product or every one is sorted or pending', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const none = await scan(api, s.auth, token, 'SKU-B');
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('no-fulfillable-order');
    expect(none.body.detail).toBe("No open order of warehouse 'Jackson St DC' contains SKU 'SKU-B'. Put the unit aside for a supervisor.");

    const pending = await scan(api, s.auth, token, 'SKU-A');
    expect(pending.status).toBe(200);
    const again = await scan(api, s.auth, token, 'SKU-A');
    expect(again.body.detail).toBe(
      "The only open order of warehouse 'Jackson St DC' that contains SKU 'SKU-A' has its remaining units scanned and awaiting confirmation. Put the unit aside for a supervisor.",
    );
    await confirm(s.auth, pending.body.id).expect(200);
    const sorted = await scan(api, s.auth, token, 'SKU-A');
    expect(sorted.body.detail).toBe("The only open order of warehouse 'Jackson St DC' that contains SKU 'SKU-A' is already fully sorted. Put the unit aside for a supervisor.");
  });

  it('says "The only slot" and "All 2 slots", never "1 slots"', async () => {
    const floor = await buildFloor(api, {
      slots: 1,
      orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] }, { id: 3, items: [{ sku: 'SKU-B', qty: 1 }] }],
    });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    expect((await scan(api, s.auth, token, 'SKU-A')).status).toBe(200);
    const full = await scan(api, s.auth, token, 'SKU-B');
    expect(full.body.code).toBe('no-empty-slot');
    expect(full.body.detail).toMatch(/^The only slot of wall '.*' holds an order; release it or attach more slots\.$/);

    await addSlots(em(), floor.tenant.clientId, floor.wallId, 1);
    expect((await scan(api, s.auth, token, 'SKU-B')).status).toBe(200);
    const fuller = await scan(api, s.auth, token, 'SKU-B');
    expect(fuller.body.detail).toMatch(/^All 2 slots of wall '.*' hold orders; release a completed slot or attach more slots\.$/);
  });

  it('a 403 names the action and the roles in words, not an operation id', async () => {
    const floor = await buildFloor(api);
    const s = await floor.sorter(1);
    const res = await request(api.app).post('/api/v1/walls').set('Authorization', s.auth).send({ name: 'Mine' });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('Only a Manager or an Admin may create a wall; you are signed in as a Sorter. Ask an Admin for the role if you need it.');
    expect(res.body.detail).not.toContain('CreateWall');
  });

  it('the slot in sort-box.completed is the same SortBox record as in the API and the other events', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const item = await scan(api, s.auth, token, 'SKU-A');
    await confirm(s.auth, item.body.id).expect(200);
    const wall = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    const apiSlot = wall.body.slots[0];
    expect(apiSlot).toMatchObject({ status: 'Complete', orderId: 1 });
    const events = await em().find(OutboxEvent, { clientId: floor.tenant.clientId, wallId: floor.wallId }, { orderBy: { id: 'asc' } });
    const slotOf = (type: string) => (events.find((e) => e.type === type)!.data as { sortBox: Record<string, unknown> }).sortBox;
    expect(slotOf('sort-box.completed')).toEqual(apiSlot);
    const keys = Object.keys(apiSlot).sort();
    for (const type of ['sort-box-item.created', 'sort-box-item.confirmed']) expect(Object.keys(slotOf(type)).sort()).toEqual(keys);
    const released = await request(api.app).post(`/api/v1/sort-boxes/B-${apiSlot.crc}/release`).set('Authorization', s.auth);
    const releasedEvent = await em().findOneOrFail(OutboxEvent, { clientId: floor.tenant.clientId, type: 'sort-box.released' });
    expect(Object.keys((releasedEvent.data as { sortBox: object }).sortBox).sort()).toEqual(keys);
    const { releasedOrderId: _r, cancelledItems: _c, ...releasedSlot } = released.body;
    expect(Object.keys(releasedSlot).sort()).toEqual(keys);
  });

  it('POST /walls and PATCH /walls/{id} answer the same Wall record as GET /walls', async () => {
    const floor = await buildFloor(api);
    const created = await request(api.app).post('/api/v1/walls').set('Authorization', floor.tenant.auth).send({ name: 'Second wall' });
    expect(created.status).toBe(200);
    const listed = await request(api.app).get('/api/v1/walls').set('Authorization', floor.tenant.auth);
    expect(listed.body.find((w: { id: number }) => w.id === created.body.id)).toEqual(created.body);
    expect(created.body).toMatchObject({ slotCount: 0, connectedSorters: 0 });
    const patched = await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).send({ maxSorters: 5 });
    const again = await request(api.app).get('/api/v1/walls').set('Authorization', floor.tenant.auth);
    expect(again.body.find((w: { id: number }) => w.id === floor.wallId)).toEqual(patched.body);
    expect(patched.body.slotCount).toBe(4);
    const [event] = await em().find(OutboxEvent, { clientId: floor.tenant.clientId, wallId: floor.wallId, type: 'wall.updated' });
    // The event's wall is the record less the printing fields, which the wall's actor does not keep
    // (docs/api.md, Walls: `printerId` and `autoPrint` are not in the event).
    const { printerId: _printerId, autoPrint: _autoPrint, ...wallShape } = patched.body as Record<string, unknown>;
    expect((event!.data as { wall: unknown }).wall).toEqual(wallShape);
  });

  it('refusing a loopback webhook URL names the setting that allows it', async () => {
    const floor = await buildFloor(api);
    const res = await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', floor.tenant.auth).send({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
  });
});

describe('GET /admin/products: the loaded products, paged', () => {
  const api = useTestApi();

  it('pages with a stable cursor, searches SKU, title and codes, validates limit and cursor, Admin only', async () => {
    const floor = await buildFloor(api, { products: [] });
    const admin = floor.tenant.auth;
    const rows = Array.from({ length: 7 }, (_, i) => ({ sku: `P-${i}`, title: i === 3 ? 'Blue Widget' : `Thing ${i}`, upc: `0000000000${i}`, aliases: i === 5 ? ['GADGET-X'] : [] }));
    await request(api.app).put('/api/v1/admin/products').set('Authorization', admin).send(rows).expect(200);
    const list = (q: string) => request(api.app).get(`/api/v1/admin/products${q}`).set('Authorization', admin);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((p: { sku: string }) => p.sku));
      cursor = res.body.nextCursor;
      pages++;
      // A product added meanwhile does not shift the pages already read.
      if (pages === 1) await request(api.app).put('/api/v1/admin/products').set('Authorization', admin).send([...rows, { sku: 'P-7', title: 'Late' }]).expect(200);
    } while (cursor);
    expect(seen).toEqual(['P-0', 'P-1', 'P-2', 'P-3', 'P-4', 'P-5', 'P-6', 'P-7']);
    expect(pages).toBe(3);

    expect((await list('?search=widget')).body.items.map((p: { sku: string }) => p.sku)).toEqual(['P-3']);
    expect((await list('?search=gadget')).body.items.map((p: { sku: string }) => p.sku)).toEqual(['P-5']);
    expect((await list('?search=p-6')).body.items.map((p: { sku: string }) => p.sku)).toEqual(['P-6']);
    expect((await list('?search=00000000004')).body.items.map((p: { sku: string }) => p.sku)).toEqual(['P-4']);
    expect((await list('?search=%25')).body.items).toEqual([]);
    const one = (await list('?search=P-1')).body.items[0];
    expect(one).toMatchObject({ sku: 'P-1', title: 'Thing 1', upc: '00000000001', aliases: [], shadowSkus: [], kitComponents: [], sitePrice: null });

    const badLimit = await list('?limit=0');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.detail).toBe("Query parameter 'limit' must be at least 1.");
    expect((await list('?limit=501')).status).toBe(400);
    const badCursor = await list('?cursor=nonsense');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors[0].path).toBe('cursor');

    const s = await floor.sorter(1);
    const forbidden = await request(api.app).get('/api/v1/admin/products').set('Authorization', s.auth);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toContain('Only an Admin may list the loaded products');
  });

  it('is in the OpenAPI document with its parameters', async () => {
    const doc = (await request(api.app).get('/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/admin/products'].get;
    expect(op.operationId).toBe('ListProducts');
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(['search', 'limit', 'cursor']);
    expect(op['x-roles']).toEqual(['Admin']);
  });
});

